#include "reports/render_html.hpp"

#include "reports/text_escape.hpp"

namespace gpuconform {

namespace {

constexpr const char* k_css = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin: 0; } h2 { font-size: 1.15em; margin-top: 1.6em; }
header.top { display: flex; justify-content: space-between; align-items: flex-start; gap: 2em; }
.counts-box { text-align: right; padding: 0.5em 0.9em; border-radius: 6px; border: 2px solid #ccc; font-size: 1.05em; }
.counts-box.bad { border-color: #c33; background: #fdf0f0; } .counts-box.good { border-color: #3a3; background: #f0faf0; }
.counts-box.unsure { border-color: #d90; background: #fff8e6; }
.verdict-line { font-size: 1.15em; margin: 0.8em 0 0.3em; padding: 0.4em 0.8em; border-left: 6px solid #ccc; }
.verdict-line.v-pass { border-color: #3a3; background: #f0faf0; } .verdict-line.v-fail { border-color: #c33; background: #fdf0f0; }
.verdict-line.v-inconclusive { border-color: #d90; background: #fff8e6; }
.headline { font-size: 1.05em; margin: 0.3em 0 0.3em 0.9em; } .fix { color: #333; }
.explains a { font-family: monospace; font-size: 0.9em; padding: 0 0.3em; border-radius: 3px; text-decoration: none; }
#other-results > summary { cursor: pointer; font-size: 1.1em; font-weight: 600; margin: 1em 0 0.5em; }
.counts-box strong { font-size: 1.2em; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; } .check { font-family: monospace; white-space: nowrap; font-weight: 400; }
.matrix-wrap { max-height: calc(100vh - 3em); max-width: 100%; overflow: auto; border: 1px solid #ccc; }
#matrix { border-collapse: separate; border-spacing: 0; }
#matrix thead th { position: sticky; top: 0; z-index: 2; }
#matrix th.check, #matrix th.corner { position: sticky; left: 0; z-index: 1; background: #fafafa; text-align: left; }
#matrix thead th.corner { z-index: 3; }
.colhead span { display: block; max-width: 7.5em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-size: 0.85em; }
td.cell { min-width: 5em; font-size: 0.85em; white-space: nowrap; } td.cell details summary { cursor: pointer; }
td.cell details[open] { white-space: normal; min-width: 12em; } td.cell ul { margin: 0.2em 0; padding-left: 1.2em; }
.cause { margin: 0.2em 0; font-style: italic; }
.st-pass { background: #d9f2d9; } .st-info { background: #dcecf7; } .st-skip { background: #eeeeee; }
.st-warn { background: #fff0c2; } .st-fail { background: #f8c9c9; } .st-error { background: #e89a9a; }
.st-none { background: #fff; color: #999; text-align: center; }
td.host { white-space: nowrap; } .verdict.rejected { color: #a00; font-weight: 700; } .verdict.accepted { color: #060; }
.causes li { margin-bottom: 0.5em; } .nodes a { margin-right: 0.3em; }
table.sortable th { cursor: pointer; } table.sortable th[aria-sort]::after { content: " ▾"; }
.filters { margin: 1em 0; display: flex; gap: 2em; flex-wrap: wrap; align-items: center; }
.toggle { font-weight: 600; }
.rejected { color: #900; } .muted { color: #777; }
.result { border: 1px solid #ccc; border-left-width: 6px; padding: 0.4em 0.8em; margin: 0.5em 0; }
.result.st-pass { border-left-color: #4a4; } .result.st-warn { border-left-color: #d90; }
.result.st-fail, .result.st-error { border-left-color: #c33; } .result h3 { font-size: 1em; margin: 0.2em 0; }
.result .summary { margin: 0.2em 0; } .result .remediation { margin: 0.2em 0; }
.result table { font-size: 0.9em; }
section.result { background: #fff; } section.result.st-fail, section.result.st-error { background: #fdf3f3; }
section.result.st-warn { background: #fffbea; } .caused-by { margin: 0.2em 0; }
svg text:not([fill]) { font-size: 11px; fill: #333; } svg text { font-size: 11px; }
.chart { margin: 0.5em 1em 1em 0; display: inline-block; vertical-align: top; }
.signature { margin-top: 3em; }
td, th, li, p, summary, h1, h3, code, figcaption { unicode-bidi: isolate; }  /* a U+202E in a host name stays in its cell */
@media print {
  .filters, .noprint { display: none; }
  body { margin: 1cm; font-size: 11px; } .matrix-wrap { max-height: none; overflow: visible; }
  tr { break-inside: avoid; } a { color: inherit; text-decoration: none; }
  .counts-box { border-width: 1px; background: none; }
}
)css";

// Only hides, shows and reorders what the server already rendered; never builds markup from data.
constexpr const char* k_js = R"js(
(function () {
  'use strict';
  var onlyBox = document.getElementById('problems-only');
  function apply() {
    if (!document.getElementById('matrix')) { return; }
    var shown = {};
    document.querySelectorAll('#status-filter input').forEach(function (box) { shown[box.value] = box.checked; });
    var group = document.getElementById('group-filter').value;
    var only = onlyBox && onlyBox.checked;
    var problemCol = {};
    document.querySelectorAll('#matrix thead th[data-col]').forEach(function (th) {
      problemCol[th.getAttribute('data-col')] = th.getAttribute('data-problem') === '1';
    });
    document.querySelectorAll('#matrix [data-col]').forEach(function (el) {
      var col = el.getAttribute('data-col');
      el.hidden = (group !== 'all' && col !== group) || (only && !problemCol[col]);
    });
    document.querySelectorAll('#group-charts [data-col]').forEach(function (el) {
      el.hidden = group !== 'all' && el.getAttribute('data-col') !== group;
    });
    var rows = 0;
    document.querySelectorAll('#matrix tbody tr').forEach(function (tr) {
      var visible = false;
      tr.querySelectorAll('td[data-col]').forEach(function (td) {
        var st = td.getAttribute('data-status');
        var problem = st === 'warn' || st === 'fail' || st === 'error';
        if (!td.hidden && shown[st] && (!only || problem)) { visible = true; }
      });
      tr.hidden = !visible;
      if (visible) { rows += 1; }
    });
    document.getElementById('shown-count').textContent = String(rows);
  }
  // A link to a host opens its drill-down.
  function openTarget() {
    var el = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (el && el.tagName === 'DETAILS') { el.open = true; }
    var fold = el && el.parentElement ? el.parentElement.closest('details') : null;
    if (fold && !fold.open) { fold.open = true; el.scrollIntoView(); }
  }
  // Sortable tables: click a header; numbers and severities sort by data-key when present.
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('thead th').forEach(function (th, index) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0];
        var descending = th.getAttribute('aria-sort') === 'ascending';
        table.querySelectorAll('thead th').forEach(function (o) { o.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        var key = function (tr) {
          var td = tr.cells[index];
          return td.hasAttribute('data-key') ? Number(td.getAttribute('data-key')) : td.textContent;
        };
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var c = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
          return descending ? -c : c;
        });
        rows.forEach(function (tr) { body.appendChild(tr); });
      });
    });
  });
  document.querySelectorAll('#status-filter input, #group-filter, #problems-only').forEach(function (el) {
    el.addEventListener('change', apply);
  });
  // One report's page: hide the cards of unticked statuses. A change opens the folded results,
  // since the person now says which statuses to see.
  function applyResults() {
    var shown = {};
    document.querySelectorAll('#result-filter input').forEach(function (box) { shown[box.value] = box.checked; });
    var count = 0;
    document.querySelectorAll('section.result[data-status]').forEach(function (card) {
      card.hidden = !shown[card.getAttribute('data-status')];
      if (!card.hidden) { count += 1; }
    });
    var out = document.getElementById('results-shown');
    if (out) { out.textContent = String(count); }
  }
  document.querySelectorAll('#result-filter input').forEach(function (box) {
    box.addEventListener('change', function () {
      var rest = document.getElementById('other-results');
      if (rest) { rest.open = true; }
      applyResults();
    });
  });
  window.addEventListener('hashchange', openTarget);
  apply();
  openTarget();
})();
)js";

}  // namespace

std::string html_page(const std::string& title, const std::string& body) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
           "script-src 'unsafe-inline'; img-src data:\">\n<title>" +
           xml_escape(title) + "</title>\n<style>" + k_css + "</style>\n</head>\n<body>\n" + body + "<script>" + k_js +
           "</script>\n</body>\n</html>\n";
}

}  // namespace gpuconform
