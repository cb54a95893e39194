#include "reports/report_scan.hpp"

#include <cstdio>

#include <simdjson.h>

#include <algorithm>

namespace gpuconform {

std::optional<GroupKey> group_key_from_string(std::string_view s) {
    for (std::size_t i = 0; i < k_group_key_names.size(); ++i) {
        if (s == k_group_key_names[i]) {
            return static_cast<GroupKey>(i);
        }
    }
    return std::nullopt;
}

std::string result_label(const std::string& id, const std::string& device) {
    return device.empty() ? id : id + " [" + device + "]";
}

namespace {

namespace dom = simdjson::dom;
using simdjson::dom::element_type;

const char* type_name(element_type t) {
    switch (t) {
        case element_type::ARRAY:
            return "an array";
        case element_type::OBJECT:
            return "an object";
        case element_type::INT64:
        case element_type::UINT64:
        case element_type::DOUBLE:
            return "a number";
        case element_type::STRING:
            return "a string";
        case element_type::BOOL:
            return "a boolean";
        case element_type::NULL_VALUE:
            return "null";
    }
    return "a value";
}

// An element already known to be an array or object, for a range-for: looping over
// `v.get_array().value_unsafe()` would iterate a member of a destroyed temporary.
dom::array as_array(dom::element v) {
    dom::array a;
    return v.get(a) == simdjson::SUCCESS ? a : dom::array{};
}
dom::object as_object(dom::element v) {
    dom::object o;
    return v.get(o) == simdjson::SUCCESS ? o : dom::object{};
}

bool is_number(element_type t) {
    return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}

// Why a report cannot be read, thrown from anywhere in the walk and caught once in scan_report.
struct Refused {
    std::string why;
};

// A key the walk reads must appear once in its object: with two, which one counts is up to each
// reader, so the roll-up and another tool would silently read different values. Keys it does not
// read may repeat, as JSON allows.
template <std::size_t N>
class ReadOnce {
public:
    explicit ReadOnce(const std::array<std::string_view, N>& keys) : m_keys(keys) {}
    void see(std::string_view key, const std::string& where, const char* object) {
        for (std::size_t i = 0; i < N; ++i) {
            if (m_keys[i] == key) {
                if (m_seen & (1u << i)) {
                    throw Refused{where + "'" + object + std::string(key) + "' appears twice"};
                }
                m_seen |= 1u << i;
                return;
            }
        }
    }

private:
    const std::array<std::string_view, N>& m_keys;
    unsigned m_seen = 0;
};

constexpr std::array<std::string_view, 7> k_top_keys{"schema",      "schema_version", "run",   "results",
                                                     "environment", "backends",       "causes"};
constexpr std::array<std::string_view, 9> k_result_keys{
    "id", "status", "backend", "device", "disturbance", "measurements", "summary", "remediation", "facts"};
constexpr std::array<std::string_view, 9> k_measurement_keys{"name", "unit",      "value", "min",    "max",
                                                             "n",    "direction", "role",  "samples"};

// Walks one parsed document and keeps only what the roll-up reads. Every field it reads is
// type-checked; simdjson has already validated the whole text, skipped members included.
class ReportWalk {
public:
    explicit ReportWalk(bool want_measurements) : m_want_measurements(want_measurements) {}

    ScannedReport read(dom::element root) {
        dom::object top;
        if (root.get(top) != simdjson::SUCCESS) {
            throw Refused{"not a gpuconform report (schema is '')"};
        }
        std::string schema;
        std::string version;
        bool saw_results = false;
        bool saw_environment = false;
        ReadOnce once(k_top_keys);
        for (const dom::key_value_pair field : top) {
            const std::string_view key = field.key;
            once.see(key, "", "");
            if (key == "schema") {
                schema = text("schema", field.value);
            } else if (key == "schema_version") {
                version = text("schema_version", field.value);
            } else if (key == "run") {
                read_run(field.value);
            } else if (key == "results" && field.value.is_array()) {
                saw_results = true;
                m_results = field.value;
            } else if (key == "environment" && field.value.is_object()) {
                saw_environment = true;
                read_environment(field.value);
            } else if (key == "backends") {
                first_in_array(field.value, "driver_version", GroupKey::Driver);
                first_in_array(field.value, "runtime_version", GroupKey::Runtime);
            } else if (key == "devices") {
                first_in_array(field.value, "name", GroupKey::Gpu);
            } else if (key == "causes" && field.value.is_array()) {
                read_causes(as_array(field.value));
            }
        }
        check_header(schema, version, saw_results, saw_environment);
        // Results last, so that a report of another schema is named as such, not by its fields.
        std::size_t n = 0;
        for (const dom::element r : as_array(m_results)) {
            read_result(++n, r);
        }
        auto& gpu = m_report.groups[static_cast<int>(GroupKey::Gpu)];
        if (gpu.empty()) {
            gpu = m_pci_vendor.empty() ? "no GPU" : m_pci_vendor + " GPU (no runtime)";
        }
        return std::move(m_report);
    }

private:
    bool m_want_measurements;
    ScannedReport m_report;
    std::string m_pci_vendor;
    dom::element m_results;
    std::string m_where;  // "result 3: " while a result is read

    [[noreturn]] void type_error(const std::string& path, element_type found, const char* wanted) const {
        throw Refused{m_where + "'" + path + "' is " + type_name(found) + ", not " + wanted};
    }
    // A field the roll-up reads as text: a string, or refused.
    std::string text(const std::string& path, dom::element v) const {
        std::string_view s;
        if (v.get(s) != simdjson::SUCCESS) {
            type_error(path, v.type(), "a string");
        }
        return std::string(s);
    }
    // Text where any other type simply carries nothing the roll-up groups by.
    static std::string_view text_or_empty(dom::element v) {
        std::string_view s;
        return v.get(s) == simdjson::SUCCESS ? s : std::string_view{};
    }
    static std::string_view text_at(dom::element v, std::string_view key) {
        dom::element found;
        return v.is_object() && v.at_key(key).get(found) == simdjson::SUCCESS ? text_or_empty(found)
                                                                              : std::string_view{};
    }
    void set_group(GroupKey key, std::string_view value) { m_report.groups[static_cast<int>(key)] = value; }

    void read_run(dom::element run) {
        dom::element id;
        if (run.is_object() && run.at_key("id").get(id) == simdjson::SUCCESS) {
            m_report.run_id = text("run.id", id);
        }
        m_report.started = text_at(run, "started");  // the store's time windows; any other type is no time
        dom::element sources;
        if (run.is_object() && run.at_key("profile_sources").get(sources) == simdjson::SUCCESS && sources.is_array()) {
            for (const dom::element source : as_array(sources)) {
                const std::string_view s = text_or_empty(source);
                m_report.profile += (m_report.profile.empty() || s.empty() ? "" : " + ") + std::string(s);
            }
        }
        // It decides the verdict (an interrupted run is inconclusive), so a wrong type is refused.
        dom::element flag;
        if (run.is_object() && run.at_key("interrupted").get(flag) == simdjson::SUCCESS && !flag.is_null()) {
            if (flag.get(m_report.interrupted) != simdjson::SUCCESS) {
                type_error("run.interrupted", flag.type(), "a boolean");
            }
        }
    }
    void read_environment(dom::object env) {
        for (const dom::key_value_pair field : env) {
            const std::string_view key = field.key;
            if (key == "hostname") {
                set_group(GroupKey::Host, text_or_empty(field.value));
            } else if (key == "kernel") {
                set_group(GroupKey::Kernel, text_or_empty(field.value));
            } else if (key == "distro") {
                set_group(GroupKey::Distro, text_at(field.value, "pretty_name"));
            } else if (key == "torch") {
                set_group(GroupKey::Torch, text_at(field.value, "version"));
            } else if (key == "pci_gpus") {
                read_pci_gpus(field.value);
            }
        }
    }
    // The HTML page draws each GPU's link: a wrong type here is refused, never left to a view.
    void read_pci_gpus(dom::element list) {
        if (list.is_null()) {
            return;
        }
        if (!list.is_array()) {
            type_error("environment.pci_gpus", list.type(), "an array");
        }
        for (const dom::element gpu : as_array(list)) {
            if (!gpu.is_object()) {
                type_error("environment.pci_gpus.#", gpu.type(), "an object");
            }
            for (const char* key : {"current_speed_gts", "current_width", "max_speed_gts", "max_width"}) {
                optional_number(gpu, key, "environment.pci_gpus.#.");
            }
            if (m_pci_vendor.empty()) {
                m_pci_vendor = text_at(gpu, "vendor");
                m_report.link = link_of(gpu);
            }
        }
    }
    // "32 GT/s x16" from a PCI GPU's current link; "" when either is unknown.
    static std::string link_of(dom::element gpu) {
        double speed = 0;
        double width = 0;
        dom::element v;
        if (gpu.at_key("current_speed_gts").get(v) != simdjson::SUCCESS || v.get(speed) != simdjson::SUCCESS ||
            gpu.at_key("current_width").get(v) != simdjson::SUCCESS || v.get(width) != simdjson::SUCCESS) {
            return "";
        }
        char text[48];
        std::snprintf(text, sizeof text, "%g GT/s x%g", speed, width);
        return text;
    }
    // A member that is absent, null or a number; anything else is refused.
    void optional_number(dom::element object, const char* key, const char* where) const {
        dom::element v;
        if (object.at_key(key).get(v) == simdjson::SUCCESS && !v.is_null() && !is_number(v.type())) {
            type_error(std::string(where) + key, v.type(), "a number");
        }
    }
    // facts.timeline, drawn by the HTML page: intervals of a label and a start and end in ms.
    void read_facts(dom::element facts) {
        dom::element timeline;
        if (!facts.is_object() || facts.at_key("timeline").get(timeline) != simdjson::SUCCESS || timeline.is_null()) {
            return;
        }
        if (!timeline.is_array()) {
            type_error("results.#.facts.timeline", timeline.type(), "an array");
        }
        for (const dom::element interval : as_array(timeline)) {
            if (!interval.is_object()) {
                type_error("results.#.facts.timeline.#", interval.type(), "an object");
            }
            dom::element label;
            if (interval.at_key("label").get(label) == simdjson::SUCCESS) {
                (void)text("results.#.facts.timeline.#.label", label);
            }
            for (const char* key : {"start_ms", "end_ms"}) {
                dom::element v;
                if (interval.at_key(key).get(v) == simdjson::SUCCESS && !is_number(v.type())) {
                    type_error(std::string("results.#.facts.timeline.#.") + key, v.type(), "a number");
                }
            }
        }
    }
    // The first non-empty `key` among an array's objects: the group value of a multi-GPU node.
    void first_in_array(dom::element list, std::string_view key, GroupKey group) {
        if (!list.is_array() || !m_report.groups[static_cast<int>(group)].empty()) {
            return;
        }
        for (const dom::element item : as_array(list)) {
            const std::string_view value = text_at(item, key);
            if (!value.empty()) {
                set_group(group, value);
                return;
            }
        }
    }
    void check_header(const std::string& schema, const std::string& version, bool saw_results,
                      bool saw_environment) const {
        if (schema != "gpuconform-report") {
            throw Refused{"not a gpuconform report (schema is '" + schema + "')"};
        }
        if (version.substr(0, version.find('.')) != "1") {
            throw Refused{"unknown schema major version '" + version + "' (this reader knows 1.x)"};
        }
        if (m_report.run_id.empty()) {
            throw Refused{"report has no run.id"};
        }
        if (!saw_results || !saw_environment) {
            throw Refused{std::string("report has no ") + (saw_results ? "environment" : "results array")};
        }
    }

    void read_result(std::size_t n, dom::element value) {
        m_where = "result " + std::to_string(n) + ": ";
        dom::object fields;
        if (value.get(fields) != simdjson::SUCCESS) {
            type_error("results.#", value.type(), "an object");
        }
        ScannedResult result;
        std::string_view summary;
        std::string_view remediation;
        std::string_view disturbance;
        std::string status;
        std::string backend;
        std::optional<std::int64_t> device;
        ReadOnce once(k_result_keys);
        for (const dom::key_value_pair field : fields) {
            const std::string_view key = field.key;
            once.see(key, m_where, "results.#.");
            if (key == "id") {
                result.id = text("results.#.id", field.value);
            } else if (key == "status") {
                status = text("results.#.status", field.value);
            } else if (key == "backend") {
                backend = field.value.is_null() ? "" : text("results.#.backend", field.value);
            } else if (key == "device") {
                device = device_index(n, field.value);
            } else if (key == "disturbance") {
                result.disturbed = field.value.is_object();
                disturbance = result.disturbed ? text_at(field.value, "summary") : std::string_view{};
            } else if (key == "summary") {
                summary = text_or_empty(field.value);
            } else if (key == "remediation") {
                remediation = text_or_empty(field.value);
            } else if (key == "measurements" && field.value.is_array()) {
                for (const dom::element m : as_array(field.value)) {
                    read_measurement(m, result);
                }
            } else if (key == "facts") {
                read_facts(field.value);
            }
        }
        const auto parsed = status_from_string(status);
        if (result.id.empty() || !parsed) {
            throw Refused{
                "result " + std::to_string(n) +
                (result.id.empty() ? " has no id" : " ('" + result.id + "') has unknown status '" + status + "'")};
        }
        result.status = *parsed;
        if (severity(result.status) > severity(Status::Info)) {
            result.summary = summary;
            result.remediation = remediation;
            result.disturbance = !result.disturbed ? "" : disturbance.empty() ? "another GPU user" : disturbance;
        }
        if (device) {
            result.device = (backend.empty() ? "device" : backend) + ":" + std::to_string(*device);
        }
        if (!m_want_measurements) {
            result.measurements.clear();
        }
        m_report.results.push_back(std::move(result));
        m_where.clear();
    }
    void read_causes(dom::array causes) {
        for (const dom::element c : causes) {
            if (!c.is_object()) {
                continue;
            }
            RunCause cause{std::string(text_at(c, "id")),
                           std::string(text_at(c, "kind")),
                           std::string(text_at(c, "title")),
                           std::string(text_at(c, "fix")),
                           {}};
            dom::element results;
            if (c.at_key("results").get(results) == simdjson::SUCCESS && results.is_array()) {
                for (const dom::element r : as_array(results)) {
                    if (r.is_string()) {
                        cause.results.emplace_back(text_or_empty(r));
                    }
                }
            }
            if (cause.title.empty()) {
                cause.title = cause.id.empty() ? cause.kind : cause.id;
            }
            m_report.causes.push_back(std::move(cause));
        }
    }
    // null where the writer writes null (a host or backend-wide check); else a device index.
    std::optional<std::int64_t> device_index(std::size_t n, dom::element v) const {
        if (v.is_null()) {
            return std::nullopt;
        }
        if (!is_number(v.type())) {
            type_error("results.#.device", v.type(), "a number");
        }
        std::int64_t index = -1;
        if (v.get(index) != simdjson::SUCCESS || index < 0 || index > k_max_device_index) {
            throw Refused{"result " + std::to_string(n) + ": device " + std::to_string(v.get_double().value_unsafe()) +
                          " is not a device index (0.." + std::to_string(k_max_device_index) + ")"};
        }
        return index;
    }
    // Measurements are always read, so that every command accepts and rejects the same files.
    void read_measurement(dom::element value, ScannedResult& result) const {
        if (!value.is_object()) {
            return;
        }
        ScannedMeasurement m;
        bool has_value = false;
        ReadOnce once(k_measurement_keys);
        for (const dom::key_value_pair field : as_object(value)) {
            const std::string_view key = field.key;
            once.see(key, m_where, "results.#.measurements.#.");
            const element_type type = field.value.type();
            if (key == "name") {
                m.name = text("results.#.measurements.#.name", field.value);
            } else if (key == "unit") {
                m.unit = text("results.#.measurements.#.unit", field.value);
            } else if (key == "value") {
                if (type != element_type::NULL_VALUE && !is_number(type)) {
                    type_error("results.#.measurements.#.value", type, "a number");
                }
                has_value = is_number(type);
                m.value = has_value ? number(field.value) : 0.0;
            } else if (key == "min" && is_number(type)) {
                m.min = number(field.value);
            } else if (key == "max" && is_number(type)) {
                m.max = number(field.value);
            } else if (key == "n" && is_number(type)) {
                m.n = static_cast<int>(std::clamp(number(field.value), -1e9, 1e9));
            } else if (key == "direction") {
                m.direction = text_or_empty(field.value);
            } else if (key == "role") {
                m.role = text_or_empty(field.value);
            } else if (key == "samples" && field.value.is_array()) {
                for (const dom::element s : as_array(field.value)) {
                    if (is_number(s.type())) {
                        m.samples.push_back(number(s));
                    }
                }
            }
        }
        if (has_value && !m.name.empty()) {
            result.measurements.push_back(std::move(m));
        }
    }
    static double number(dom::element v) {
        switch (v.type()) {
            case element_type::INT64:
                return static_cast<double>(v.get_int64().value_unsafe());
            case element_type::UINT64:
                return static_cast<double>(v.get_uint64().value_unsafe());
            default:
                return v.get_double().value_unsafe();
        }
    }
};

struct TextShape {
    std::string problem;      // too large or too deep
    bool unfinished = false;  // ends inside a string or an open object or array
};

TextShape text_shape(std::string_view text) {
    if (text.size() > k_max_report_bytes) {
        return {"larger than " + std::to_string(k_max_report_bytes >> 20) + " MiB", false};
    }
    // Depth outside strings, before any parser sees it: a deep nest must not reach a recursive
    // copy or dump (render) even inside members the scan itself skips.
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > k_max_report_depth) {
                return {"nested deeper than " + std::to_string(k_max_report_depth) + " levels", false};
            }
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return {"", in_string || depth > 0};
}

}  // namespace

std::string report_text_problem(std::string_view text) { return text_shape(text).problem; }

std::optional<ScannedReport> scan_report(std::string_view text, bool want_measurements, std::string& error) {
    const TextShape shape = text_shape(text);
    if (error = shape.problem; !error.empty()) {
        return std::nullopt;
    }
    // One parser per thread: it keeps its buffers from one report to the next.
    thread_local dom::parser parser;
    dom::element root;
    if (const auto code = parser.parse(text.data(), text.size()).get(root); code != simdjson::SUCCESS) {
        if (code == simdjson::EMPTY) {
            error = "empty: no JSON text";
        } else {
            error = (shape.unfinished ? "not valid JSON (truncated?): " : "not valid JSON: ") +
                    std::string(simdjson::error_message(code));
        }
        return std::nullopt;
    }
    try {
        return ReportWalk(want_measurements).read(root);
    } catch (const Refused& r) {
        error = r.why;
        return std::nullopt;
    }
}

}  // namespace gpuconform
