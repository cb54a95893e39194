#include "core/yaml_document.hpp"

#include <sstream>
#include <vector>

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

}  // namespace

YAML::Node load_one_yaml_document(const std::string& text, const std::string& source) {
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
    } catch (const YAML::Exception& e) {
        throw YamlDocumentError(source + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
    }
    if (documents.size() > 1) {
        throw YamlDocumentError(
            source + ":" + std::to_string(second_marker_line(text)) +
            ": a second YAML document ('---'); a file holds one, so nothing after it would be read");
    }
    return documents.empty() ? YAML::Node() : documents.front();
}

}  // namespace gpuconform
