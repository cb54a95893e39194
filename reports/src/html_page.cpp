#include "render_html.hpp"

#include "text_escape.hpp"

namespace gpuconform {

namespace {

constexpr const char* k_css = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; } td.check { font-family: monospace; white-space: nowrap; }
td.cell { min-width: 9em; } td.cell details summary { cursor: pointer; font-size: 0.85em; }
.st-pass { background: #d9f2d9; } .st-info { background: #dcecf7; } .st-skip { background: #eeeeee; }
.st-warn { background: #fff0c2; } .st-fail { background: #f8c9c9; } .st-error { background: #e89a9a; }
.st-none { background: #fff; color: #999; text-align: center; }
.worst { font-weight: 700; text-transform: uppercase; font-size: 0.8em; margin-right: 0.4em; }
.filters { margin: 1em 0; display: flex; gap: 2em; flex-wrap: wrap; }
.rejected { color: #900; } .muted { color: #777; }
svg text { font-size: 11px; fill: #333; } .chart { margin: 0.5em 1em 1em 0; display: inline-block; }
)css";

// Only hides and shows what the server already rendered; never builds markup from data.
constexpr const char* k_js = R"js(
(function () {
  'use strict';
  function apply() {
    var shown = {};
    document.querySelectorAll('#status-filter input').forEach(function (box) { shown[box.value] = box.checked; });
    var group = document.getElementById('group-filter').value;
    document.querySelectorAll('[data-col]').forEach(function (el) {
      el.hidden = group !== 'all' && el.getAttribute('data-col') !== group;
    });
    var rows = 0;
    document.querySelectorAll('#matrix tbody tr').forEach(function (tr) {
      var visible = false;
      tr.querySelectorAll('td[data-col]').forEach(function (td) {
        if (!td.hidden && shown[td.getAttribute('data-status')]) { visible = true; }
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
  }
  document.querySelectorAll('#status-filter input, #group-filter').forEach(function (el) {
    el.addEventListener('change', apply);
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
           xml_escape(title) + "</title>\n<style>" + k_css + "</style>\n</head>\n<body>\n" + body +
           "<script>" + k_js + "</script>\n</body>\n</html>\n";
}

}  // namespace gpuconform
