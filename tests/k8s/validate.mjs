// SPDX-License-Identifier: Apache-2.0
// Validates Kubernetes manifests against the Kubernetes API's OpenAPI schema, with the
// validators the npm package kubernetes-models generates from it (types, required fields,
// enums), plus the object-name and label rules the API server checks beyond the schema
// (apimachinery's validation: DNS-1123 names, qualified label keys, label values).
//
// Usage: node validate.mjs NODE_MODULES FILE...
//   NODE_MODULES  the node_modules directory that holds kubernetes-models and yaml
//                 (scripts/install-deps.sh installs them into /opt/jetgate-node)
// Every YAML document of every FILE is checked. Prints "ok FILE KIND/NAME" per document
// and "invalid FILE: ..." per problem. Exit 0 all valid, 1 a document is not, 2 usage or
// the packages are missing.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const [modules, ...files] = process.argv.slice(2);
if (!modules || files.length === 0) {
  console.error('usage: node validate.mjs NODE_MODULES FILE...');
  process.exit(2);
}
const require = createRequire(modules.replace(/\/?$/, '/'));
let YAML, models;
try {
  YAML = require('yaml');
  models = {
    'v1/Namespace': require('kubernetes-models/v1').Namespace,
    'v1/ConfigMap': require('kubernetes-models/v1').ConfigMap,
    'batch/v1/Job': require('kubernetes-models/batch/v1').Job,
    'batch/v1/CronJob': require('kubernetes-models/batch/v1').CronJob,
    'apps/v1/DaemonSet': require('kubernetes-models/apps/v1').DaemonSet,
  };
} catch (e) {
  console.error(`kubernetes-models or yaml is not in ${modules} (${e.code ?? e.message}): ` +
                'run scripts/install-deps.sh');
  process.exit(2);
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const qualifiedName = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function isLabel(s) { return typeof s === 'string' && s.length <= 63 && dns1123Label.test(s); }
function isSubdomain(s) {
  return typeof s === 'string' && s.length <= 253 && dns1123Subdomain.test(s) &&
         s.split('.').every((p) => p.length <= 63);
}
// A label or annotation key: [PREFIX/]NAME, PREFIX a DNS-1123 subdomain, NAME at most 63.
function isQualifiedKey(k) {
  const slash = k.lastIndexOf('/');
  const name = slash < 0 ? k : k.slice(slash + 1);
  if (slash >= 0 && !isSubdomain(k.slice(0, slash))) return false;
  return name.length <= 63 && qualifiedName.test(name);
}

// The API server's checks of names and labels that the OpenAPI schema leaves out.
function apiServerProblems(doc) {
  const out = [];
  const meta = (m, where) => {
    if (!m) return;
    if (m.name !== undefined) {
      const ok = doc.kind === 'Namespace' || where !== 'metadata' ? isLabel(m.name)
                                                                  : isSubdomain(m.name);
      if (!ok) out.push(`${where}.name ${JSON.stringify(m.name)} is not a DNS-1123 name`);
    }
    if (m.namespace !== undefined && !isLabel(m.namespace))
      out.push(`${where}.namespace ${JSON.stringify(m.namespace)} is not a DNS-1123 label`);
    for (const [k, v] of Object.entries(m.labels ?? {})) {
      if (!isQualifiedKey(k)) out.push(`${where}.labels: key ${JSON.stringify(k)} is not valid`);
      if (typeof v !== 'string' || v.length > 63 || !labelValue.test(v))
        out.push(`${where}.labels: value ${JSON.stringify(v)} of ${k} is not a label value`);
    }
    for (const k of Object.keys(m.annotations ?? {}))
      if (!isQualifiedKey(k)) out.push(`${where}.annotations: key ${JSON.stringify(k)} is not valid`);
  };
  meta(doc.metadata, 'metadata');
  const template = doc.spec?.template ?? doc.spec?.jobTemplate?.spec?.template;
  if (template) {
    meta(template.metadata, 'spec.template.metadata');
    const pod = template.spec ?? {};
    const volumes = new Set((pod.volumes ?? []).map((v) => v.name));
    for (const v of pod.volumes ?? [])
      if (!isLabel(v.name)) out.push(`volume name ${JSON.stringify(v.name)} is not a DNS-1123 label`);
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      if (!isLabel(c.name)) out.push(`container name ${JSON.stringify(c.name)} is not a DNS-1123 label`);
      for (const m of c.volumeMounts ?? [])
        if (!volumes.has(m.name)) out.push(`container ${c.name} mounts ${JSON.stringify(m.name)}, which is no volume`);
    }
    const selector = doc.spec?.selector?.matchLabels;
    if (selector)
      for (const [k, v] of Object.entries(selector))
        if ((template.metadata?.labels ?? {})[k] !== v)
          out.push(`spec.selector.matchLabels ${k}=${v} does not select the template's labels`);
  }
  return out;
}

let failed = false;
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    console.error(`${file}: ${e.message}`);
    process.exit(2);
  }
  const docs = YAML.parseAllDocuments(text, { uniqueKeys: true, strict: true });
  for (const d of docs) {
    if (d.errors.length) {
      failed = true;
      for (const e of d.errors) console.log(`invalid ${file}: YAML: ${e.message}`);
      continue;
    }
    const obj = d.toJS();
    if (obj === null || obj === undefined) continue;
    const key = `${obj.apiVersion}/${obj.kind}`;
    const Model = models[key];
    if (!Model) {
      failed = true;
      console.log(`invalid ${file}: no schema for apiVersion ${obj.apiVersion} kind ${obj.kind}`);
      continue;
    }
    const problems = [];
    try {
      new Model(obj).validate();
    } catch (e) {
      problems.push(`schema: ${e.message}`);
    }
    problems.push(...apiServerProblems(obj));
    if (problems.length) {
      failed = true;
      for (const p of problems) console.log(`invalid ${file}: ${obj.kind}/${obj.metadata?.name}: ${p}`);
    } else {
      console.log(`ok ${file} ${obj.kind}/${obj.metadata?.name}`);
    }
  }
}
process.exit(failed ? 1 : 0);
