#include "junit.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "core/result.hpp"
#include "report_fields.hpp"
#include "text_escape.hpp"

namespace gpuconform {

namespace {

struct Suite {
    std::string name;
    std::vector<CheckResult> cases;
    int failures = 0;
    int errors = 0;
    int skipped = 0;
    double time_s = 0.0;
};

std::vector<Suite> suites_by_layer(const nlohmann::json& results) {
    std::vector<Suite> suites;
    for (const char* layer : {"host", "health", "runtime", "async", "framework", "acceptance"}) {
        suites.push_back(Suite{layer, {}, 0, 0, 0, 0.0});
    }
    for (const auto& j : results) {
        const CheckResult r = result_from_json_lenient(j);
        auto it = std::find_if(suites.begin(), suites.end(), [&](const Suite& s) { return s.name == r.layer; });
        if (it == suites.end()) {
            suites.push_back(Suite{r.layer, {}, 0, 0, 0, 0.0});
            it = suites.end() - 1;
        }
        it->failures += r.status == Status::Fail ? 1 : 0;
        it->errors += r.status == Status::Error ? 1 : 0;
        it->skipped += r.status == Status::Skip ? 1 : 0;
        it->time_s += r.duration_s;
        it->cases.push_back(r);
    }
    std::erase_if(suites, [](const Suite& s) { return s.cases.empty(); });
    return suites;
}

// Text for XML 1.0: invalid UTF-8 becomes U+FFFD, and code points XML forbids even as
// references (surrogates, U+FFFE, U+FFFF) are dropped; then the markup characters are escaped.
// https://www.w3.org/TR/xml/#charsets
std::string xml_text(std::string_view s) {
    std::string clean;
    clean.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        bool ok = len > 0 && i + len <= s.size();
        char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
        for (std::size_t k = 1; ok && k < len; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            ok = (c & 0xC0) == 0x80;
            cp = (cp << 6) | (c & 0x3F);
        }
        const std::size_t min_len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        ok = ok && min_len == len && cp <= 0x10FFFF;
        if (!ok) {
            clean += "\xEF\xBF\xBD";
            ++i;
            continue;
        }
        const bool forbidden = (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF;
        if (!forbidden) {
            clean.append(s.substr(i, len));
        }
        i += len;
    }
    return xml_escape(clean);
}

// Case and suite names carry the host, so the files of a fleet merged into one CI view keep
// every case apart (GitLab and Jenkins key cases on classname + name).
std::string testcase_xml(const CheckResult& r, const std::string& classname) {
    std::string name = r.id;
    if (r.device) {
        name += fmt::format(" [{}:{}]", r.backend, *r.device);
    }
    std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\">\n", xml_text(classname),
                                  xml_text(name), r.duration_s);
    const std::string body = r.remediation.empty() ? r.summary : r.summary + "\n" + r.remediation;
    if (r.status == Status::Fail) {
        out += fmt::format("      <failure type=\"fail\" message=\"{}\">{}</failure>\n", xml_text(r.summary),
                           xml_text(body));
    } else if (r.status == Status::Error) {
        out +=
            fmt::format("      <error type=\"error\" message=\"{}\">{}</error>\n", xml_text(r.summary), xml_text(body));
    } else if (r.status == Status::Skip) {
        out += fmt::format("      <skipped message=\"{}\"/>\n", xml_text(r.summary));
    } else {
        out += fmt::format("      <system-out>{}: {}</system-out>\n", to_string(r.status), xml_text(r.summary));
    }
    return out + "    </testcase>\n";
}

std::string properties_xml(const nlohmann::json& report) {
    const std::vector<std::pair<std::string, std::string>> props = {
        {"run_id", string_at(report, "/run/id")},
        {"distro", string_at(report, "/environment/distro/pretty_name")},
        {"kernel", string_at(report, "/environment/kernel")},
        {"tool_version", string_at(report, "/tool/version")},
    };
    std::string out = "    <properties>\n";
    for (const auto& [k, v] : props) {
        out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", k, xml_text(v));
    }
    return out + "    </properties>\n";
}

}  // namespace

std::string render_junit(const nlohmann::json& report) {
    const std::vector<Suite> suites = suites_by_layer(report.at("results"));
    int tests = 0;
    int failures = 0;
    int errors = 0;
    double time_s = 0.0;
    std::string body;
    const std::string host_raw = string_at(report, "/environment/hostname");
    const std::string host = xml_text(host_raw);
    const std::string stamp = xml_text(string_at(report, "/run/started"));
    for (const Suite& s : suites) {
        const std::string suite_name =
            fmt::format("gpuconform.{}.{}", host_raw.empty() ? "unknown-host" : host_raw, s.name);
        tests += static_cast<int>(s.cases.size());
        failures += s.failures;
        errors += s.errors;
        time_s += s.time_s;
        body += fmt::format(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6f}\" "
            "hostname=\"{}\" timestamp=\"{}\">\n",
            xml_text(suite_name), s.cases.size(), s.failures, s.errors, s.skipped, s.time_s, host, stamp);
        body += properties_xml(report);
        for (const CheckResult& r : s.cases) {
            body += testcase_xml(r, suite_name);
        }
        body += "  </testsuite>\n";
    }
    // <testsuites> has no skipped attribute in the Jenkins xUnit JUnit schema; the suites carry it.
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"gpuconform\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
        "time=\"{:.6f}\">\n{}</testsuites>\n",
        tests, failures, errors, time_s, body);
}

}  // namespace gpuconform
