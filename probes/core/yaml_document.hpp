// The one YAML loader for files the user writes (profiles, tolerance files). yaml-cpp's Load
// reads the first document and drops the rest without a word, so a floor after a `---` would be
// ignored and the run would pass; a second document is refused here instead.
#pragma once

#include <stdexcept>
#include <string>

#include <yaml-cpp/yaml.h>

namespace gpuconform {

class YamlDocumentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The text's one document (a null node when empty). Throws YamlDocumentError naming
// "source:line: ..." for a syntax error or a second document.
YAML::Node load_one_yaml_document(const std::string& text, const std::string& source);

// "source:line" of a node (its line counted from 1), or the source alone when the node has none.
std::string yaml_where(const std::string& source, const YAML::Node& node);

}  // namespace gpuconform
