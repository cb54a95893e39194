// YAML of many documents (kustomize's output) on stdin -> one JSON list on stdout, for the
// Python checks (pod_security.py) that read JSON only.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const docs = parseAllDocuments(readFileSync(0, "utf8")).map((d) => {
  if (d.errors.length) {
    console.error(`to-json: ${d.errors[0].message}`);
    process.exit(2);
  }
  return d.toJS();
});
process.stdout.write(JSON.stringify(docs.filter((d) => d), null, 1) + "\n");
