// Validates Kubernetes manifests offline against the API schemas that the kubernetes-models
// package ships (generated from the Kubernetes OpenAPI spec of its release).
// usage: node validate.mjs FILE.yaml|FILE.json...   exit 0 all valid, 1 some invalid, 2 bad input
// What it cannot see: fields the schema does not know are not rejected (the generated schemas
// allow extra properties); `kubectl apply --dry-run=server` on a real cluster would.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

// apiVersion -> module folder in kubernetes-models ("v1" is the core group).
const folder = (apiVersion) => apiVersion;

async function modelFor(apiVersion, kind) {
  try {
    const mod = await import(`kubernetes-models/${folder(apiVersion)}/${kind}`);
    return mod[kind];
  } catch {
    return null;
  }
}

let invalid = 0;
let checked = 0;
for (const file of process.argv.slice(2)) {
  let docs;
  try {
    const text = readFileSync(file, "utf8");
    docs = file.endsWith(".json") ? [JSON.parse(text)]
      : parseAllDocuments(text).map((d) => {
          if (d.errors.length) throw new Error(d.errors[0].message);
          return d.toJS();
        });
  } catch (e) {
    console.error(`${file}: cannot parse: ${e.message}`);
    process.exit(2);
  }
  for (const doc of docs.filter((d) => d)) {
    checked++;
    const where = `${file}: ${doc.kind}/${doc.metadata?.name}`;
    const Model = await modelFor(doc.apiVersion, doc.kind);
    if (!Model) {
      console.log(`INVALID ${where}: unknown apiVersion/kind ${doc.apiVersion}/${doc.kind}`);
      invalid++;
      continue;
    }
    try {
      new Model(doc).validate();
      console.log(`valid   ${where}`);
    } catch (e) {
      console.log(`INVALID ${where}: ${e.message}`);
      invalid++;
    }
  }
}
console.log(`${checked} documents, ${invalid} invalid`);
process.exit(invalid ? 1 : checked ? 0 : 2);
