#include "core/yaml_document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <string_view>

namespace gpuconform {

namespace {

// The line of the `---` that opens the second document (yaml-cpp marks its first node, or
// nothing for an empty one).
int second_marker_line(const std::string& text) {
    std::istringstream in(text);
    int line = 0;
    bool content = false;
    for (std::string s; std::getline(in, s);) {
        ++line;
        if (s.rfind("---", 0) == 0 && (s.size() == 3 || s[3] == ' ' || s[3] == '\t' || s[3] == '\r')) {
            if (content) {
                return line;
            }
            content = true;  // a leading `---` opens the first document
        } else if (!s.empty() && s.find_first_not_of(" \t\r") != std::string::npos && s[0] != '#') {
            content = true;
        }
    }
    return line;
}

// Counts documents; builds nothing.
class IgnoreEvents final : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

// Whether the text holds more than one document. At most two are asked for: on some malformed
// input yaml-cpp 0.7 (Debian 12) reports a new document on every call without reading on, which
// made YAML::LoadAll loop for ever (found by the profile fuzzer: ", [:\xbb,\x0e ").
bool more_than_one_document(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    IgnoreEvents ignore;
    int documents = 0;
    while (documents < 2 && parser.HandleNextDocument(ignore)) {
        ++documents;
    }
    return documents > 1;
}

}  // namespace

YAML::Node load_one_yaml_document(const std::string& text, const std::string& source) {
    YAML::Node first;
    bool second = false;
    try {
        first = YAML::Load(text);
        second = more_than_one_document(text);
    } catch (const YAML::Exception& e) {
        throw YamlDocumentError(source + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
    }
    if (second) {
        throw YamlDocumentError(source + ":" + std::to_string(second_marker_line(text)) +
                                ": a second YAML document ('---', or text the parser cannot read past); a file "
                                "holds one, so nothing after it would be read");
    }
    return first;
}

std::string yaml_where(const std::string& source, const YAML::Node& node) {
    const auto mark = node.Mark();
    return mark.line >= 0 ? source + ":" + std::to_string(mark.line + 1) : source;
}

}  // namespace gpuconform
