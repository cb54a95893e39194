#include "reports/junit.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "core/result.hpp"
#include "reports/report_fields.hpp"
#include "reports/text_escape.hpp"

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

// Every string through the one XML escape (bounded, XML 1.0 characters only: text_escape.hpp).
std::string xml_text(std::string_view s) { return xml_escape(s); }

// Case and suite names carry the host, so the files of a fleet merged into one CI view keep
// every case apart (GitLab and Jenkins key cases on classname + name).
std::string testcase_xml(const CheckResult& r, const std::string& classname) {
    std::string name = r.id;
    if (r.device) {
        name += fmt::format(" [{}:{}]", r.backend, *r.device);
    }
    std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n", xml_text(classname),
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
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\" "
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
        "time=\"{:.3f}\">\n{}</testsuites>\n",
        tests, failures, errors, time_s, body);
}

}  // namespace gpuconform
