#include "report_scan.hpp"

#include <nlohmann/json.hpp>

#include "scan_prefilter.hpp"

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

using Json = nlohmann::json;

// Tracks where in the document each SAX event is, and keeps only the fields the roll-up reads.
class ScanHandler : public nlohmann::json_sax<Json> {
public:
    ScanHandler(bool want_measurements, std::size_t text_size)
        : size(text_size), m_want_measurements(want_measurements) {}

    std::size_t size;  // of the text parsed: an error at its end means the text stopped early
    ScannedReport report;
    std::string schema;
    std::string schema_version;
    std::string pci_vendor;
    std::string error;
    bool saw_results = false;
    bool saw_environment = false;

    bool null() override { return not_a_string("null", true) && scalar(nullptr); }
    bool boolean(bool) override { return not_a_string("a boolean", false) && scalar(nullptr); }
    bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), true); }
    bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v), true); }
    bool number_float(number_float_t v, const string_t&) override { return number(v, false); }
    bool binary(binary_t&) override { return not_a_string("binary", false) && scalar(nullptr); }
    bool string(string_t& s) override {
        if (is({"results", "#", "device"}) || is({"results", "#", "measurements", "#", "value"})) {
            return type_error("a string", "a number");
        }
        return scalar(&s);
    }
    bool key(string_t& k) override {
        m_frames.back().key = k;
        return true;
    }
    bool start_object(std::size_t) override { return not_a_string("an object", false) && open(false); }
    bool start_array(std::size_t) override { return not_a_string("an array", false) && open(true); }
    bool end_array() override { return close(); }
    bool end_object() override {
        close();  // now the path is where the closed object sat
        if (is({"results", "#", "measurements", "#"})) {
            finish_measurement();
        } else if (is({"results", "#"})) {
            return finish_result();
        }
        return true;
    }
    bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& e) override {
        error = (pos >= size ? "not valid JSON (truncated?): " : "not valid JSON: ") + std::string(e.what());
        return false;
    }

private:
    struct Frame {
        bool array = false;
        std::string key;
    };
    // The document's root object is frame 0; each open object or array pushes one more.
    std::vector<Frame> m_frames;
    bool m_want_measurements;
    ScannedResult m_result;
    std::string m_status;
    bool m_has_id = false;
    ScannedMeasurement m_measurement;
    bool m_has_value = false;
    std::string m_backend;
    std::optional<long> m_device;

    // True when the value being read sits at `path`; "#" stands for any array element.
    bool is(std::initializer_list<std::string_view> path) const {
        if (m_frames.size() != path.size()) {
            return false;
        }
        std::size_t i = 0;
        for (const std::string_view p : path) {
            const Frame& f = m_frames[i++];
            if (p == "#" ? !f.array : (f.array || f.key != p)) {
                return false;
            }
        }
        return true;
    }
    bool open(bool array) {
        if (m_frames.size() == 2 && m_frames[0].key == "results" && m_frames[1].array && !array) {
            m_result = ScannedResult{};
            m_status.clear();
            m_has_id = false;
            m_backend.clear();
            m_device.reset();
        }
        if (!array && m_frames.size() == 3 && m_frames[1].array && m_frames[0].key == "results" &&
            m_frames[2].key == "disturbance") {
            m_result.disturbed = true;
        }
        if (m_frames.size() == 1) {
            saw_results = saw_results || (array && m_frames[0].key == "results");
            saw_environment = saw_environment || (!array && m_frames[0].key == "environment");
        }
        m_frames.push_back(Frame{array, {}});
        return true;
    }
    bool close() {
        m_frames.pop_back();
        return true;
    }
    // Where the value being read is one of the string fields the roll-up uses, names it.
    const char* string_field() const {
        static constexpr std::array<const char*, 3> k_top{"schema", "schema_version", ""};
        static constexpr std::array<const char*, 3> k_result{"id", "status", "backend"};
        if (m_frames.size() == 1) {
            for (const char* k : k_top) {
                if (*k != 0 && m_frames[0].key == k) {
                    return k;
                }
            }
        } else if (m_frames.size() == 3 && m_frames[0].key == "results" && m_frames[1].array && !m_frames[2].array) {
            for (const char* k : k_result) {
                if (m_frames[2].key == k) {
                    return k;
                }
            }
        } else if (is({"results", "#", "measurements", "#", "name"})) {
            return "name";
        } else if (is({"results", "#", "measurements", "#", "unit"})) {
            return "unit";
        } else if (is({"run", "id"})) {
            return "id";
        }
        return nullptr;
    }
    bool type_error(const char* found, const char* wanted) {
        const std::string where = m_frames.size() >= 3 && m_frames[0].key == "results"
                                      ? "result " + std::to_string(report.results.size() + 1) + ": "
                                      : "";
        std::string key;
        for (std::size_t i = 0; i < m_frames.size(); ++i) {
            if (i != 0) {
                key += '.';  // piecewise: "." + string trips GCC 12's false -Wrestrict (PR 105651)
            }
            key += m_frames[i].array ? std::string("#") : m_frames[i].key;
        }
        error = where + "'" + key + "' is " + found + ", not " + wanted;
        return false;
    }
    // Null is allowed where the writer itself writes null (backend, device, a missing value).
    bool not_a_string(const char* found, bool is_null) {
        const char* field = string_field();
        if (field != nullptr && !(is_null && std::string_view(field) == "backend")) {
            return type_error(found, "a string");
        }
        if (!is_null && (is({"results", "#", "device"}) || is({"results", "#", "measurements", "#", "value"}))) {
            return type_error(found, "a number");
        }
        if (m_frames.size() > k_max_report_depth) {
            error = "nested deeper than " + std::to_string(k_max_report_depth) + " levels";
            return false;
        }
        return true;
    }
    bool number(double v, bool integral) {
        if (string_field() != nullptr) {
            return type_error("a number", "a string");
        }
        if (is({"results", "#", "device"})) {
            if (!integral || v < 0 || v > k_max_device_index) {
                error = "result " + std::to_string(report.results.size() + 1) + ": device " + std::to_string(v) +
                        " is not a device index (0.." + std::to_string(k_max_device_index) + ")";
                return false;
            }
            m_device = static_cast<long>(v);
        } else if (is({"results", "#", "measurements", "#", "value"})) {
            m_measurement.value = v;
            m_has_value = true;
        } else if (is({"results", "#", "measurements", "#", "min"})) {
            m_measurement.min = v;
        } else if (is({"results", "#", "measurements", "#", "max"})) {
            m_measurement.max = v;
        } else if (is({"results", "#", "measurements", "#", "samples", "#"})) {
            m_measurement.samples.push_back(v);
        } else if (is({"results", "#", "measurements", "#", "n"})) {
            m_measurement.n = static_cast<int>(v);
        }
        return true;
    }
    bool scalar(std::string* s);
    bool finish_result();
    void finish_measurement();
};

bool ScanHandler::scalar(std::string* s) {
    if (s == nullptr) {
        return true;
    }
    if (m_frames.size() == 1) {
        if (m_frames[0].key == "schema") {
            schema = *s;
        } else if (m_frames[0].key == "schema_version") {
            schema_version = *s;
        }
    } else if (m_frames.size() == 3 && m_frames[1].array && m_frames[0].key == "results") {
        // Most scalars are result fields: one path test, then the key alone.
        const std::string& key = m_frames[2].key;
        if (key == "id") {
            m_result.id = *s;
            m_has_id = !s->empty();
        } else if (key == "status") {
            m_status = *s;
        } else if (key == "backend") {
            m_backend = *s;
        }
    } else if (is({"results", "#", "measurements", "#", "name"})) {
        m_measurement.name = *s;
    } else if (is({"results", "#", "measurements", "#", "unit"})) {
        m_measurement.unit = *s;
    } else if (is({"results", "#", "measurements", "#", "direction"})) {
        m_measurement.direction = *s;
    } else if (is({"results", "#", "measurements", "#", "role"})) {
        m_measurement.role = *s;
    } else if (is({"run", "id"})) {
        report.run_id = *s;
    } else if (is({"environment", "hostname"})) {
        report.groups[static_cast<int>(GroupKey::Host)] = *s;
    } else if (is({"environment", "distro", "pretty_name"})) {
        report.groups[static_cast<int>(GroupKey::Distro)] = *s;
    } else if (is({"environment", "kernel"})) {
        report.groups[static_cast<int>(GroupKey::Kernel)] = *s;
    } else if (is({"environment", "torch", "version"})) {
        report.groups[static_cast<int>(GroupKey::Torch)] = *s;
    } else if (is({"environment", "pci_gpus", "#", "vendor"}) && pci_vendor.empty()) {
        pci_vendor = *s;
    } else if (is({"backends", "#", "driver_version"}) && report.groups[static_cast<int>(GroupKey::Driver)].empty()) {
        report.groups[static_cast<int>(GroupKey::Driver)] = *s;
    } else if (is({"backends", "#", "runtime_version"}) && report.groups[static_cast<int>(GroupKey::Runtime)].empty()) {
        report.groups[static_cast<int>(GroupKey::Runtime)] = *s;
    } else if (is({"devices", "#", "name"}) && report.groups[static_cast<int>(GroupKey::Gpu)].empty()) {
        report.groups[static_cast<int>(GroupKey::Gpu)] = *s;
    }
    return true;
}

bool ScanHandler::finish_result() {
    const auto status = status_from_string(m_status);
    if (!m_has_id || !status) {
        error = "result " + std::to_string(report.results.size() + 1) +
                (m_has_id ? " ('" + m_result.id + "') has unknown status '" + m_status + "'" : " has no id");
        return false;
    }
    m_result.status = *status;
    if (m_device) {
        m_result.device = (m_backend.empty() ? "device" : m_backend) + ":" + std::to_string(*m_device);
    }
    report.results.push_back(std::move(m_result));
    return true;
}

void ScanHandler::finish_measurement() {
    if (m_want_measurements && m_has_value && !m_measurement.name.empty()) {
        m_result.measurements.push_back(std::move(m_measurement));
    }
    m_measurement = ScannedMeasurement{};
    m_has_value = false;
}

std::string check_header(const ScanHandler& h) {
    if (h.schema != "gpuconform-report") {
        return "not a gpuconform report (schema is '" + h.schema + "')";
    }
    const std::string major = h.schema_version.substr(0, h.schema_version.find('.'));
    if (major != "1") {
        return "unknown schema major version '" + h.schema_version + "' (this reader knows 1.x)";
    }
    if (h.report.run_id.empty()) {
        return "report has no run.id";
    }
    if (!h.saw_results || !h.saw_environment) {
        return std::string("report has no ") + (h.saw_results ? "environment" : "results array");
    }
    return "";
}

}  // namespace

std::string report_text_problem(std::string_view text) {
    if (text.size() > k_max_report_bytes) {
        return "larger than " + std::to_string(k_max_report_bytes >> 20) + " MiB";
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
                return "nested deeper than " + std::to_string(k_max_report_depth) + " levels";
            }
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
    }
    return "";
}

std::optional<ScannedReport> scan_report(std::string_view text, bool want_measurements, std::string& error) {
    if (error = report_text_problem(text); !error.empty()) {
        return std::nullopt;
    }
    thread_local std::string reduced;
    // Measurements are always scanned, so that every command accepts and rejects the same files;
    // they are kept only when wanted.
    const bool complete = prefilter_report(text, true, reduced);
    if (reduced.empty()) {
        error = "empty: no JSON text";
        return std::nullopt;
    }
    if (!complete) {
        error = "not valid JSON (truncated?): the text ends inside a value";
        return std::nullopt;
    }
    ScanHandler h(want_measurements, reduced.size());
    const bool ok = Json::sax_parse(reduced.begin(), reduced.end(), &h, nlohmann::detail::input_format_t::json, true);
    if (!ok) {
        error = h.error.empty() ? "not valid JSON" : h.error;
        return std::nullopt;
    }
    error = check_header(h);
    if (!error.empty()) {
        return std::nullopt;
    }
    auto& gpu = h.report.groups[static_cast<int>(GroupKey::Gpu)];
    if (gpu.empty()) {
        gpu = h.pci_vendor.empty() ? "no GPU" : h.pci_vendor + " GPU (no runtime)";
    }
    return std::move(h.report);
}

}  // namespace gpuconform
