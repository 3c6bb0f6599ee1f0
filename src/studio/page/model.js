// The studio's model logic, with no DOM: DynamoDB's typed values, entities
// by the model's type attribute or key templates, key templates filled
// and read back, an access pattern as the DynamoDB call it makes, that call
// as code, and entities inferred from the items' key prefixes.

// ---------- typed values ----------

export function toTyped(v) {
  if (v === null || v === undefined) return { NULL: true };
  if (typeof v === 'string') return { S: v };
  if (typeof v === 'number') return { N: String(v) };
  if (typeof v === 'boolean') return { BOOL: v };
  if (Array.isArray(v)) return { L: v.map(toTyped) };
  if (typeof v === 'object') return { M: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toTyped(x)])) };
  return { S: String(v) };
}

export function toPlain(av) {
  if (av === null || typeof av !== 'object') return av;
  if ('S' in av) return av.S;
  if ('N' in av) { const n = Number(av.N); return Number.isSafeInteger(n) || !/^-?\d+$/.test(av.N) ? n : av.N; }
  if ('BOOL' in av) return av.BOOL;
  if ('NULL' in av) return null;
  if ('B' in av) return av.B;
  if ('L' in av) return (av.L || []).map(toPlain);
  if ('M' in av) return Object.fromEntries(Object.entries(av.M || {}).map(([k, x]) => [k, toPlain(x)]));
  if ('SS' in av) return av.SS;
  if ('NS' in av) return av.NS.map(Number);
  if ('BS' in av) return av.BS;
  return av;
}

export const itemToPlain = (item) => Object.fromEntries(Object.entries(item || {}).map(([k, v]) => [k, toPlain(v)]));

// A value as one line of text for a cell.
export function show(av) {
  if (av === undefined) return '';
  if (av === null || typeof av !== 'object') return String(av);
  if ('S' in av) return av.S;
  if ('N' in av) return av.N;
  if ('BOOL' in av) return String(av.BOOL);
  if ('NULL' in av) return 'null';
  if ('B' in av) return `<binary ${av.B.length} b64>`;
  return JSON.stringify(toPlain(av));
}

export const typeOf = (av) => (av && typeof av === 'object' ? Object.keys(av)[0] : '');

// ---------- tables ----------

// The key names of the table and of each index, from DescribeTable.
export function keysOf(desc) {
  // pk and sk: the first HASH and RANGE attributes; pks and sks: all of
  // them, in key order (a GSI's multi-attribute key has up to 4 of each)
  const ks = (schema) => {
    const pks = schema.filter((k) => k.KeyType === 'HASH').map((k) => k.AttributeName);
    const sks = schema.filter((k) => k.KeyType === 'RANGE').map((k) => k.AttributeName);
    return { pk: pks[0], sk: sks[0], pks, sks, multi: pks.length > 1 || sks.length > 1 };
  };
  const t = desc.Table;
  const types = Object.fromEntries((t.AttributeDefinitions || []).map((a) => [a.AttributeName, a.AttributeType]));
  const indexes = {};
  for (const ix of t.GlobalSecondaryIndexes || []) indexes[ix.IndexName] = { ...ks(ix.KeySchema), kind: 'GSI', projection: ix.Projection?.ProjectionType };
  for (const ix of t.LocalSecondaryIndexes || []) indexes[ix.IndexName] = { ...ks(ix.KeySchema), kind: 'LSI', projection: ix.Projection?.ProjectionType };
  return { table: ks(t.KeySchema), indexes, types };
}

// Every index key attribute name -> the indexes it keys.
export function indexKeyNames(keys) {
  const out = {};
  for (const [name, ix] of Object.entries(keys.indexes)) {
    for (const a of [...ix.pks, ...ix.sks]) (out[a] ||= []).push(name);
  }
  return out;
}

// The key attributes of a key space: every HASH one, then every RANGE one.
export const keyAttributes = (space) => [...(space.pks || [space.pk]), ...(space.sks || [space.sk])].filter(Boolean);

// The partition of an item in a key space, as the studio names it: the
// partition key's value, or for several HASH attributes a JSON array of
// their texts (["acme", "2"]), as st_partitions and the traffic counters do.
export function partitionOf(space, item) {
  if (!space.pks || space.pks.length < 2) return show(item[space.pk]);
  return `[${space.pks.map((k) => JSON.stringify(show(item[k]))).join(', ')}]`;
}

// An item's attribute names: the table's keys, the indexes' keys, then the rest by name.
export function orderedNames(items, keys, first = []) {
  const seen = new Set();
  const out = [];
  const add = (n) => { if (n && !seen.has(n)) { seen.add(n); out.push(n); } };
  first.forEach(add);
  add(keys.table.pk); add(keys.table.sk);
  const ixNames = Object.keys(indexKeyNames(keys));
  const present = new Set(items.flatMap((i) => Object.keys(i)));
  ixNames.filter((n) => present.has(n)).forEach(add);
  [...present].sort().forEach(add);
  return out;
}

// ---------- templates ----------

export const placeholders = (t) => [...String(t).matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]);

export function fill(template, params) {
  return String(template).replace(/\{([^{}]+)\}/g, (_, n) => {
    if (!(n in params) || params[n] === '' || params[n] === undefined) throw new Error(`parameter ${n} is missing`);
    return String(params[n]);
  });
}

const reEscape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The placeholders' values read back from a key, or null when it does not fit.
export function readBack(template, value) {
  if (typeof value !== 'string') value = value === undefined ? undefined : String(value);
  if (value === undefined) return null;
  const parts = String(template).split(/(\{[^{}]+\})/);
  const names = [];
  const re = parts.map((p) => {
    const m = /^\{([^{}]+)\}$/.exec(p);
    if (m) { names.push(m[1]); return '(.*?)'; }
    return reEscape(p);
  }).join('');
  const m = new RegExp(`^${re}$`, 's').exec(value);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, m[i + 1]]));
}

// ---------- entities ----------

export function typeAttribute(model) {
  if (!model) return null;
  return model.type_attribute === undefined ? 'entity_type' : model.type_attribute;
}

// The entity of a typed item: by the type attribute, else by its keys' templates.
export function entityOf(model, keys, item) {
  if (!model?.entities) return null;
  const ta = typeAttribute(model);
  const ents = Object.entries(model.entities);
  const byKeys = (e) => [keys.table.pk, keys.table.sk].filter(Boolean)
    .every((k) => e.keys?.[k] !== undefined && readBack(e.keys[k], show(item[k])) !== null);
  if (ta && item[ta]) {
    const v = show(item[ta]);
    const named = ents.filter(([n, e]) => (e.type ?? n) === v);
    if (named.length === 1) return named[0][0];
    const fit = named.find(([, e]) => byKeys(e));
    if (fit) return fit[0];
  }
  const fit = ents.find(([, e]) => byKeys(e));
  return fit ? fit[0] : null;
}

// The attributes the entity's key templates hold for this item.
export function derived(model, entity, item) {
  const e = model?.entities?.[entity];
  const out = {};
  if (!e?.keys) return out;
  for (const [k, t] of Object.entries(e.keys)) {
    const vals = readBack(t, item[k] === undefined ? undefined : show(item[k]));
    if (vals) Object.assign(out, vals);
  }
  return out;
}

// Entities inferred from the items' key prefixes (the text before the first '#').
export function inferModel(items, keys) {
  const prefix = (v) => (typeof v === 'string' && v.includes('#') ? v.slice(0, v.indexOf('#')) : null);
  const groups = new Map();
  for (const it of items) {
    const pk = show(it[keys.table.pk]);
    const sk = keys.table.sk ? show(it[keys.table.sk]) : '';
    const p = prefix(pk) ?? '';
    const s = keys.table.sk ? (prefix(sk) ?? sk) : '';
    const id = `${p}|${s}`;
    if (!groups.has(id)) groups.set(id, { p, s, sample: { pk, sk }, n: 0 });
    groups.get(id).n++;
  }
  const entities = {};
  const template = (value, pre) => {
    if (!pre) return `{${keys.table.pk === 'pk' ? 'id' : 'pk'}_value}`;
    const segs = value.split('#').length - 1;
    const base = pre.toLowerCase().replace(/[^a-z0-9_]/g, '_') || 'key';
    return [pre, ...Array.from({ length: segs }, (_, i) => `{${base}${segs > 1 ? `_${i + 1}` : '_id'}}`)].join('#');
  };
  for (const g of groups.values()) {
    const name = (g.s || g.p || 'Item').toLowerCase().replace(/(^|[_\W]+)(\w)/g, (_, a, c) => c.toUpperCase()).replace(/\W/g, '') || 'Item';
    let unique = name;
    for (let i = 2; entities[unique]; i++) unique = `${name}${i}`;
    const k = { [keys.table.pk]: template(g.sample.pk, g.p) };
    if (keys.table.sk) {
      k[keys.table.sk] = g.sample.sk.includes('#') ? template(g.sample.sk, g.s)
        : g.sample.sk === g.sample.pk ? k[keys.table.pk] : g.s;
    }
    entities[unique] = { keys: k, description: `${g.n} item(s) like ${g.sample.pk} / ${g.sample.sk}` };
  }
  return { description: 'inferred from the items\' key prefixes: rename the entities and placeholders', type_attribute: null, entities };
}

// ---------- access patterns as calls ----------

const SK_OPS = { '=': '=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

const CONDITIONS = ['=', '<', '<=', '>', '>=', 'between', 'begins_with'];

// A key condition's value as [op, argument]: a template is "=".
const condition = (v) => (typeof v === 'string' ? ['=', v] : Object.entries(v || {})[0] || []);

// The values a pattern gives a multi-attribute key's HASH (or RANGE)
// attributes, one per name (undefined: not given), from "pk" or "sk" as the
// model takes them (docs/studio.md): an array in key order, an object by
// attribute name, or a lone value for the first attribute.
export function keyValues(v, names) {
  if (v === undefined || v === null) return names.map(() => undefined);
  if (Array.isArray(v)) return names.map((_, i) => v[i] ?? undefined);
  const lone = typeof v !== 'object' || (Object.keys(v).length === 1 && !names.includes(Object.keys(v)[0])
    && CONDITIONS.includes(Object.keys(v)[0]));
  return lone ? names.map((_, i) => (i === 0 ? v : undefined)) : names.map((n) => v[n] ?? undefined);
}

function describeCondition(name, v) {
  const [op, x] = condition(v);
  if (op === 'begins_with') return `begins_with(${name}, ${x})`;
  if (op === 'between') return `${name} between ${x[0]} and ${x[1]}`;
  return op ? `${name} ${op} ${x}` : '';
}

// The pattern's key condition, readable: "PK = CUST#{customer_id} and begins_with(SK, ORDER#)".
export function describeKey(p, keyNames) {
  const parts = [];
  if (keyNames.multi && p.op === 'Query') {
    const names = [...keyNames.pks, ...keyNames.sks];
    [...keyValues(p.pk, keyNames.pks), ...keyValues(p.sk, keyNames.sks)]
      .forEach((v, i) => { if (v !== undefined) parts.push(describeCondition(names[i], v)); });
  } else {
    if (p.pk !== undefined) parts.push(`${keyNames.pk} = ${p.pk}`);
    if (p.sk !== undefined) parts.push(describeCondition(keyNames.sk, p.sk));
  }
  if (p.filter) parts.push(`filter ${p.filter}`);
  if (p.entity) parts.push(`writes ${p.entity}`);
  return parts.join(' and ');
}

// Every parameter a pattern takes.
export function patternParams(model, p) {
  const names = new Set();
  const add = (t) => placeholders(t).forEach((n) => names.add(n));
  // every template of the key condition, however deep (a multi-attribute key's arrays and objects)
  const addAll = (v) => {
    if (typeof v === 'string') add(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(addAll);
  };
  addAll(p.pk);
  addAll(p.sk);
  for (const v of Object.values(p.values || {})) if (typeof v === 'string') add(v);
  if (p.op === 'PutItem') {
    const e = model.entities?.[p.entity] || {};
    Object.values(e.keys || {}).forEach(add);
    Object.keys(e.attributes || {}).forEach((n) => names.add(n));
  }
  return [...names];
}

const keyValue = (type, text) => (type === 'N' ? { N: text } : type === 'B' ? { B: text } : { S: text });

// The DynamoDB request a (non-PutItem) pattern makes, typed, with ReturnConsumedCapacity.
export function patternRequest(tableName, keys, p, params) {
  const space = p.index ? keys.indexes[p.index] : keys.table;
  if (!space) throw new Error(`index ${p.index} does not exist`);
  const r = { TableName: tableName };
  if (p.index) r.IndexName = p.index;
  const names = {};
  const values = {};
  if (p.op === 'GetItem') {
    r.Key = { [space.pk]: keyValue(keys.types[space.pk], fill(p.pk, params)) };
    if (space.sk) r.Key[space.sk] = keyValue(keys.types[space.sk], fill(typeof p.sk === 'string' ? p.sk : p.sk['='], params));
  } else if (p.op === 'Query' && space.multi) {
    // a multi-attribute key: each attribute given, in key order (DynamoDB's
    // rules, checked when the model was set)
    const attrs = [...space.pks, ...space.sks];
    const conds = [];
    [...keyValues(p.pk, space.pks), ...keyValues(p.sk, space.sks)].forEach((v, i) => {
      if (v === undefined) return;
      const t = keys.types[attrs[i]];
      const [op, x] = condition(v);
      names[`#k${i}`] = attrs[i];
      if (op === 'between') {
        values[`:k${i}`] = keyValue(t, fill(x[0], params));
        values[`:k${i}b`] = keyValue(t, fill(x[1], params));
        conds.push(`#k${i} BETWEEN :k${i} AND :k${i}b`);
      } else if (op === 'begins_with') {
        values[`:k${i}`] = keyValue(t, fill(x, params));
        conds.push(`begins_with(#k${i}, :k${i})`);
      } else {
        values[`:k${i}`] = keyValue(t, fill(x, params));
        conds.push(`#k${i} ${SK_OPS[op] || '='} :k${i}`);
      }
    });
    r.KeyConditionExpression = conds.join(' AND ');
  } else if (p.op === 'Query') {
    names['#k0'] = space.pk;
    values[':k0'] = keyValue(keys.types[space.pk], fill(p.pk, params));
    let cond = '#k0 = :k0';
    if (p.sk !== undefined) {
      names['#k1'] = space.sk;
      const t = keys.types[space.sk];
      const [op, v] = typeof p.sk === 'string' ? ['=', p.sk] : Object.entries(p.sk)[0];
      if (op === 'between') {
        values[':k1'] = keyValue(t, fill(v[0], params));
        values[':k2'] = keyValue(t, fill(v[1], params));
        cond += ' AND #k1 BETWEEN :k1 AND :k2';
      } else if (op === 'begins_with') {
        values[':k1'] = keyValue(t, fill(v, params));
        cond += ' AND begins_with(#k1, :k1)';
      } else {
        values[':k1'] = keyValue(t, fill(v, params));
        cond += ` AND #k1 ${SK_OPS[op] || '='} :k1`;
      }
    }
    r.KeyConditionExpression = cond;
  } else if (p.op !== 'Scan') {
    throw new Error(`${p.op} patterns run through RunPattern`);
  }
  if (p.filter) r.FilterExpression = p.filter;
  if (p.projection) r.ProjectionExpression = p.projection;
  Object.assign(names, p.names || {});
  for (const [k, v] of Object.entries(p.values || {})) {
    const m = typeof v === 'string' ? /^\{([^{}]+)\}$/.exec(v) : null;
    if (m) {
      const raw = params[m[1]];
      if (raw === undefined || raw === '') throw new Error(`parameter ${m[1]} is missing`);
      values[k] = toTyped(raw);
    } else values[k] = toTyped(typeof v === 'string' ? fill(v, params) : v);
  }
  if (Object.keys(names).length && r.Key === undefined) r.ExpressionAttributeNames = names;
  else if (Object.keys(names).length) r.ExpressionAttributeNames = names;
  if (Object.keys(values).length) r.ExpressionAttributeValues = values;
  if (p.forward === false) r.ScanIndexForward = false;
  if (p.limit) r.Limit = p.limit;
  if (p.consistent) r.ConsistentRead = true;
  r.ReturnConsumedCapacity = 'TOTAL';
  return r;
}

// For a Scan whose filter compares an attribute with "=": a GSI keyed on it would make it a Query.
export function scanSuggestion(p) {
  if (p.op !== 'Scan') return null;
  const m = /(#?[A-Za-z_][\w]*)\s*=\s*(:[\w]+)/.exec(p.filter || '');
  if (!m) return 'A Scan reads every item: give the items a key (or a GSI key) this pattern can name, and Query it.';
  const attr = m[1].startsWith('#') ? (p.names || {})[m[1]] ?? m[1] : m[1];
  return `A GSI with partition key ${attr} would turn this Scan into a Query (KeyConditionExpression ${attr} = ${m[2]}).`;
}

// ---------- code ----------

function py(v, ind = '') {
  const next = `${ind}    `;
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return v.length ? `[\n${v.map((x) => next + py(x, next)).join(',\n')}\n${ind}]` : '[]';
  const e = Object.entries(v);
  return e.length ? `{\n${e.map(([k, x]) => `${next}${JSON.stringify(k)}: ${py(x, next)}`).join(',\n')}\n${ind}}` : '{}';
}

const snake = (op) => op.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase());
const kebab = (op) => op.replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase());
const shq = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const pq = (s) => `'${String(s).replace(/'/g, "''")}'`;
const pn = (s) => `"${String(s).replace(/"/g, '""')}"`;

function plainRequest(r) {
  const out = { ...r };
  if (r.Key) out.Key = itemToPlain(r.Key);
  if (r.ExpressionAttributeValues) out.ExpressionAttributeValues = itemToPlain(r.ExpressionAttributeValues);
  if (r.Item) out.Item = itemToPlain(r.Item);
  return out;
}

function partiqlValue(av) {
  const t = typeOf(av);
  if (t === 'N') return av.N;
  if (t === 'S') return pq(av.S);
  if (t === 'BOOL') return String(av.BOOL);
  if (t === 'NULL') return 'NULL';
  return pq(show(av));
}

export function partiql(op, r) {
  const from = r.IndexName ? `${pn(r.TableName)}.${pn(r.IndexName)}` : pn(r.TableName);
  if (op === 'PutItem') {
    return `INSERT INTO ${pn(r.TableName)} VALUE {${Object.entries(r.Item).map(([k, v]) => `${pq(k)}: ${partiqlValue(v)}`).join(', ')}}`;
  }
  const names = r.ExpressionAttributeNames || {};
  const vals = r.ExpressionAttributeValues || {};
  const expr = (e) => e.replace(/#[\w]+/g, (n) => pn(names[n] ?? n)).replace(/:[\w]+/g, (v) => (vals[v] ? partiqlValue(vals[v]) : v))
    .replace(/ BETWEEN /gi, ' BETWEEN ');
  const where = [];
  if (r.Key) for (const [k, v] of Object.entries(r.Key)) where.push(`${pn(k)} = ${partiqlValue(v)}`);
  if (r.KeyConditionExpression) where.push(expr(r.KeyConditionExpression));
  if (r.FilterExpression) where.push(`(${expr(r.FilterExpression)})`);
  const cols = r.ProjectionExpression ? r.ProjectionExpression.split(',').map((c) => expr(c.trim())).join(', ') : '*';
  return `SELECT ${cols} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

// The call as code to copy: boto3, the JavaScript SDK v3 DocumentClient, aws-cli, PartiQL.
export function codeFor(op, r, endpoint, region = 'us-east-1') {
  const plain = plainRequest(r);
  const cmd = `${op}Command`;
  return {
    boto3: `import boto3\n\nclient = boto3.client("dynamodb", endpoint_url=${JSON.stringify(endpoint)}, region_name=${JSON.stringify(region)})\n`
      + `response = client.${snake(op)}(**${py(r)})\nprint(response.get("Items", response.get("Item")))\n`,
    js: `import { DynamoDBClient } from "@aws-sdk/client-dynamodb";\nimport { DynamoDBDocumentClient, ${cmd} } from "@aws-sdk/lib-dynamodb";\n\n`
      + `const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: ${JSON.stringify(endpoint)}, region: ${JSON.stringify(region)} }));\n`
      + `const out = await doc.send(new ${cmd}(${JSON.stringify(plain, null, 2)}));\nconsole.log(JSON.stringify(out.Items ?? out.Item));\n`,
    cli: `aws dynamodb ${kebab(op)} --endpoint-url ${endpoint} --region ${region} \\\n  --cli-input-json ${shq(JSON.stringify(r))}`,
    partiql: partiql(op, r),
  };
}
