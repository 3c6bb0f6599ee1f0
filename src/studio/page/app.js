// The design studio's page: views over the endpoint's operations.  Every
// value from the database goes into the DOM as text (textContent, never
// innerHTML), whatever it holds.
import { auth, call, setKey, hasKey, stats, ApiError } from './api.js';
import * as M from './model.js';

const $ = (sel) => document.querySelector(sel);
const PAGE = 100;
const PALETTE = 10;

// el('td', {class: 'x', title: t, onclick: f}, 'text', child...)
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'value') e.value = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

let timer = null;          // the hot partitions' refresh
const tables = new Map();  // name -> {desc, keys, model}
const state = { agg: {}, editItem: null };

function status(text, isError = false) {
  const s = $('#status');
  s.textContent = '';
  s.append(el('span', { class: isError ? 'err' : '' }, text));
  s.append(el('span', { class: 'meter', id: 'meter' }, ` · ${stats.calls} calls, ${stats.items} items read, ${Math.round(stats.ms)} ms`));
  document.body.dataset.calls = stats.calls;
  document.body.dataset.itemsRead = stats.items;
}

function errorBox(e) {
  const type = e instanceof ApiError ? e.type : 'Error';
  return el('div', { class: 'error', role: 'alert' }, el('strong', {}, type), ': ', e.message);
}

const fmtBytes = (n) => (n == null ? '' : n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// ---------- tables ----------

async function listTables() {
  const names = [];
  let start;
  do {
    const r = await call('ListTables', start ? { ExclusiveStartTableName: start } : {});
    names.push(...r.TableNames);
    start = r.LastEvaluatedTableName;
  } while (start);
  return names;
}

// A table's description and model.  The views take its definition only
// (StDesign_Studio.DescribeTableDefinition: no pass over the items, which
// DescribeTable makes to count them, seconds on a table of millions); the
// tables list counts (DescribeTable), and the views show those counts when
// the list has been seen.
const counted = new Map();
async function loadTable(name, withCounts = false) {
  const desc = withCounts ? await call('DescribeTable', { TableName: name })
    : await call('StDesign_Studio.DescribeTableDefinition', { TableName: name });
  if (withCounts) counted.set(name, desc.Table);
  else if (counted.has(name)) {
    const c = counted.get(name);
    desc.Table.ItemCount = c.ItemCount;
    desc.Table.TableSizeBytes = c.TableSizeBytes;
    desc.counted = true;
    for (const g of desc.Table.GlobalSecondaryIndexes || []) g.ItemCount = c.GlobalSecondaryIndexes?.find((x) => x.IndexName === g.IndexName)?.ItemCount;
  }
  let model = null;
  let modelError = null;
  try { model = (await call('StDesign_Studio.GetModel', { TableName: name })).Model; } catch (e) { modelError = e; }
  const t = { name, desc, keys: M.keysOf(desc), model, modelError };
  t.entities = model?.entities ? Object.keys(model.entities).sort() : [];
  tables.set(name, t);
  return t;
}

async function tablesView(main) {
  main.append(el('h2', {}, 'Tables'));
  const names = await listTables();
  const tbody = el('tbody');
  main.append(el('table', { class: 'grid', id: 'tables' },
    el('thead', {}, el('tr', {}, ['table', 'items', 'size', 'keys', 'indexes', 'model'].map((h) => el('th', {}, h)))), tbody));
  if (!names.length) main.append(el('p', { class: 'note' }, 'No tables this role can see.'));
  for (const n of names) {
    const t = await loadTable(n, true).catch((e) => ({ name: n, error: e }));
    if (t.error) { tbody.append(el('tr', {}, el('td', {}, n), el('td', { colspan: 5 }, errorBox(t.error)))); continue; }
    const T = t.desc.Table;
    const ix = [...(T.GlobalSecondaryIndexes || []).map((i) => `${i.IndexName} (GSI)`), ...(T.LocalSecondaryIndexes || []).map((i) => `${i.IndexName} (LSI)`)];
    tbody.append(el('tr', {},
      el('td', {}, el('a', { href: `#/t/${encodeURIComponent(n)}/aggregate`, class: 'table-link' }, n)),
      el('td', { class: 'num' }, T.ItemCount ?? ''),
      el('td', { class: 'num' }, fmtBytes(T.TableSizeBytes)),
      el('td', {}, [t.keys.table.pk, t.keys.table.sk].filter(Boolean).join(', ')),
      el('td', {}, ix.join(', ') || '—'),
      el('td', {}, t.model ? plural(t.entities.length, 'entity', 'entities') : t.modelError ? t.modelError.type : 'none')));
  }
}

// ---------- grouped items (aggregate, GSI views) ----------

function entityClass(t, entity) {
  const i = t.entities.indexOf(entity);
  return i < 0 ? 'enone' : `e${i % PALETTE}`;
}

function badge(t, entity) {
  return el('span', { class: `badge ${entityClass(t, entity)}`, 'data-entity': entity ?? '' }, entity ?? '?');
}

// The names of an item's attributes past the keys: index keys first, then by name.
function restNames(t, items, skip, entity) {
  const ixKeys = M.indexKeyNames(t.keys);
  const present = new Set(items.flatMap((i) => Object.keys(i)));
  const declared = Object.keys(t.model?.entities?.[entity]?.attributes || {});
  declared.forEach((n) => present.add(n));
  skip.forEach((n) => present.delete(n));
  const all = [...present].sort();
  return [...all.filter((n) => ixKeys[n]), ...all.filter((n) => !ixKeys[n])];
}

function headerCell(t, name) {
  const ix = M.indexKeyNames(t.keys)[name];
  return el('th', { class: ix ? 'gsikey' : '', title: ix ? `key of ${ix.join(', ')}` : null }, name, ix ? el('sup', {}, ix.length > 1 ? 'idx' : ix[0]) : null);
}

function valueCell(t, item, name, derived) {
  const v = item[name];
  if (v === undefined) {
    if (derived && name in derived) return el('td', { class: 'derived', title: 'from the key template' }, derived[name]);
    return el('td', { class: 'absent' });
  }
  const text = M.show(v);
  return el('td', { class: `v t${M.typeOf(v)}`, title: text.length > 60 ? text.slice(0, 2000) : null }, text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

// Items in key order, one group per partition key value: one line for a
// one-item partition, a collapsed line for more; a header row of attribute
// names wherever the entity changes.
function groupedTable(t, items, space, first, opts = {}) {
  const groups = [];
  for (const it of items) {
    const pk = M.partitionOf(space, it);
    if (!groups.length || groups.at(-1).pk !== pk) groups.push({ pk, items: [] });
    groups.at(-1).items.push(it);
  }
  const keyCols = first.filter(Boolean);
  // the partition key's columns: every HASH attribute of a multi-attribute key
  const npk = Math.max(1, (space.pks || []).filter((k) => keyCols.includes(k)).length);
  const table = el('table', { class: 'grid agg' });
  const tbody = el('tbody');
  table.append(el('thead', {}, el('tr', {}, keyCols.map((k) => el('th', { class: 'key' }, k)), el('th', {}, 'entity'), el('th', { colspan: 99 }, 'attributes'))), tbody);
  let lastSig = null;
  const rowsOf = (g, into, inPartition) => {
    for (let i = 0; i < g.items.length; i++) {
      const it = g.items[i];
      const ent = M.entityOf(t.model, t.keys, it);
      const names = restNames(t, [it], keyCols, ent);
      const sig = `${ent}|${names.join(',')}`;
      if (sig !== lastSig) {
        into.push(el('tr', { class: `hdr ${entityClass(t, ent)}` }, keyCols.map(() => el('th', {})), el('th', {}), names.map((n) => headerCell(t, n))));
        lastSig = sig;
      }
      const der = M.derived(t.model, ent, it);
      into.push(el('tr', { class: `item ${entityClass(t, ent)}${inPartition ? ' member' : ''}`, 'data-entity': ent ?? '', 'data-pk': g.pk, onclick: () => opts.onItem?.(it) },
        keyCols.map((k, j) => (j < npk && inPartition ? el('td', { class: 'pk indent' }) : el('td', { class: j < npk ? 'pk' : 'key' }, M.show(it[k])))),
        el('td', {}, badge(t, ent)),
        names.map((n) => valueCell(t, it, n, der))));
    }
  };
  for (const g of groups) {
    if (g.items.length === 1) {
      const rows = [];
      rowsOf(g, rows, false);
      tbody.append(...rows);
      continue;
    }
    const members = [];
    lastSig = null;
    rowsOf(g, members, true);
    lastSig = null;
    const counts = {};
    for (const it of g.items) { const e = M.entityOf(t.model, t.keys, it) ?? '?'; counts[e] = (counts[e] || 0) + 1; }
    const head = el('tr', { class: 'part collapsed', 'data-pk': g.pk, tabindex: 0, 'aria-expanded': 'false' },
      el('td', { class: 'pk', colspan: keyCols.length }, el('span', { class: 'twisty' }), g.pk, el('span', { class: 'count' }, ` ${plural(g.items.length, 'item')}`)),
      el('td', { colspan: 99 }, Object.entries(counts).map(([e, n]) => [badge(t, e === '?' ? null : e), ` ${n} `])));
    members.forEach((m) => { m.hidden = !opts.expand; });
    if (opts.expand) { head.classList.remove('collapsed'); head.setAttribute('aria-expanded', 'true'); }
    const toggle = () => {
      const open = head.classList.toggle('collapsed') === false;
      head.setAttribute('aria-expanded', String(open));
      members.forEach((m) => { m.hidden = !open; });
    };
    head.addEventListener('click', toggle);
    head.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); toggle(); } });
    tbody.append(head, ...members);
  }
  if (!items.length) tbody.append(el('tr', {}, el('td', { colspan: 99, class: 'note' }, 'No items.')));
  return table;
}

function legend(t, onPick, active) {
  if (!t.entities.length) return el('p', { class: 'note' }, 'No model: entities are unknown. The Model tab infers some from the keys.');
  return el('p', { class: 'legend' }, 'Entities: ', t.entities.map((e) => el('button', {
    type: 'button', class: `badge ${entityClass(t, e)}${active === e ? ' active' : ''}`, 'data-entity-toggle': e, onclick: () => onPick(e),
  }, e)));
}

// A paged Scan of the table or an index, with key prefix and entity filters.
async function scanPage(t, st, indexName) {
  const space = indexName ? t.keys.indexes[indexName] : t.keys.table;
  const req = { TableName: t.name, Limit: st.pageSize || PAGE, ReturnConsumedCapacity: 'TOTAL' };
  if (indexName) req.IndexName = indexName;
  const filters = [];
  const names = {};
  const values = {};
  if (st.prefix) {
    filters.push('begins_with(#p, :p)');
    names['#p'] = space.pk;
    values[':p'] = { S: st.prefix };
  }
  const ta = M.typeAttribute(t.model);
  if (st.entity && ta) {
    filters.push('#t = :t');
    names['#t'] = ta;
    values[':t'] = { S: t.model.entities[st.entity]?.type ?? st.entity };
  }
  if (filters.length) Object.assign(req, { FilterExpression: filters.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values });
  const start = st.starts[st.page];
  if (start) req.ExclusiveStartKey = start;
  const r = await call('Scan', req);
  let items = r.Items;
  if (st.entity && !ta) items = items.filter((i) => M.entityOf(t.model, t.keys, i) === st.entity);
  st.starts[st.page + 1] = r.LastEvaluatedKey ?? null;
  return { items, scanned: r.ScannedCount, capacity: r.ConsumedCapacity?.CapacityUnits, more: !!r.LastEvaluatedKey };
}

function pager(st, res, rerender, total) {
  const first = st.page * (st.pageSize || PAGE) + 1;
  return el('div', { class: 'pager' },
    el('button', { type: 'button', disabled: st.page === 0, onclick: () => { st.page--; rerender(); } }, '‹ previous'),
    el('span', { class: 'pageinfo' }, `page ${st.page + 1}: ${plural(res.items.length, 'item')} shown, ${res.scanned} read (items ${first}–${first + res.scanned - 1} in key order`,
      total != null ? ` of about ${total}` : '', `), ${res.capacity ?? 0} RCU`),
    el('button', { type: 'button', disabled: !res.more, onclick: () => { st.page++; rerender(); } }, 'next ›'),
    res.more || st.page > 0 ? el('span', { class: 'note sample' }, ' Sampled: one page of the items at a time, in key order.') : null);
}

function searchForm(t, st, rerender, label) {
  const prefix = el('input', { id: 'search-prefix', placeholder: `${label} prefix, e.g. CUST#`, value: st.prefix || '', spellcheck: 'false' });
  const ent = el('select', { id: 'search-entity' }, el('option', { value: '' }, 'any entity'), t.entities.map((e) => el('option', { value: e }, e)));
  ent.value = st.entity || '';
  return el('form', { class: 'search', onsubmit: (ev) => { ev.preventDefault(); Object.assign(st, { prefix: prefix.value, entity: ent.value, page: 0, starts: [null] }); rerender(); } },
    prefix, ent, el('button', { type: 'submit' }, 'Search'));
}

async function aggregateView(main, t, indexName) {
  const key = indexName || '';
  const st = (state.agg[`${t.name}/${key}`] ||= { page: 0, starts: [null], prefix: '', entity: '' });
  const space = indexName ? t.keys.indexes[indexName] : t.keys.table;
  const first = indexName ? [...M.keyAttributes(space), t.keys.table.pk, t.keys.table.sk] : [space.pk, space.sk];
  const uniq = [...new Set(first.filter(Boolean))];
  const box = el('div');
  const rerender = async () => {
    box.textContent = '';
    const res = await scanPage(t, st, indexName);
    box.append(...[searchForm(t, st, rerender, space.pk),
      legend(t, (e) => { st.entity = st.entity === e ? '' : e; st.page = 0; st.starts = [null]; rerender(); }, st.entity),
      pager(st, res, rerender, !t.desc.counted ? null : indexName ? t.desc.Table.GlobalSecondaryIndexes?.find((g) => g.IndexName === indexName)?.ItemCount : t.desc.Table.ItemCount),
      indexName ? el('p', { class: 'note' }, `Index keys ${M.keyAttributes(space).join(', ')} first, then the table's keys ${[t.keys.table.pk, t.keys.table.sk].filter(Boolean).join(', ')}; ${space.projection} projection.`) : null,
      groupedTable(t, res.items, space, uniq, { onItem: (it) => { state.editItem = it; location.hash = `#/t/${encodeURIComponent(t.name)}/items`; } })].filter(Boolean));
    status(`${t.name}${indexName ? ` · ${indexName}` : ''}: page ${st.page + 1}`);
  };
  main.append(box);
  await rerender();
}

// ---------- facets ----------

async function facetView(main, t, entity) {
  if (!t.entities.length) { main.append(el('p', { class: 'note' }, 'Facets need a model (the Model tab).')); return; }
  entity = entity && t.entities.includes(entity) ? entity : t.entities[0];
  const e = t.model.entities[entity];
  main.append(el('p', { class: 'facets' }, 'Facet: ', t.entities.map((n) => el('a', { href: `#/t/${encodeURIComponent(t.name)}/facet/${encodeURIComponent(n)}`, class: `badge ${entityClass(t, n)}${n === entity ? ' active' : ''}` }, n))));
  const st = (state.agg[`${t.name}/facet/${entity}`] ||= { page: 0, starts: [null], prefix: '', entity });
  st.entity = entity;
  const box = el('div');
  main.append(box);
  const rerender = async () => {
    box.textContent = '';
    const res = await scanPage(t, st, null);
    const keyAttrs = Object.keys(e.keys || {});
    const attrs = [...new Set([...Object.keys(e.attributes || {}), ...res.items.flatMap((i) => Object.keys(i))])].filter((n) => !keyAttrs.includes(n)).sort();
    const tbody = el('tbody');
    for (const it of res.items) {
      const der = M.derived(t.model, entity, it);
      tbody.append(el('tr', { class: `item ${entityClass(t, entity)}` }, keyAttrs.map((k) => el('td', { class: 'key' }, M.show(it[k]))), attrs.map((n) => valueCell(t, it, n, der))));
    }
    if (!res.items.length) tbody.append(el('tr', {}, el('td', { colspan: 99, class: 'note' }, 'No items of this entity on this page.')));
    box.append(pager(st, res, rerender, null), el('table', { class: 'grid facet' },
      el('thead', {}, el('tr', {}, keyAttrs.map((k) => el('th', { class: 'key template', title: k }, el('small', {}, k), el('br'), e.keys[k])), attrs.map((n) => headerCell(t, n)))), tbody));
    status(`${t.name} · facet ${entity}`);
  };
  await rerender();
}

// ---------- entity map ----------

async function mapView(main, t) {
  if (!t.model) { main.append(el('p', { class: 'note' }, 'The entity map needs a model (the Model tab).')); return; }
  let checks = [];
  try { checks = (await call('StDesign_Studio.CheckModel', { TableName: t.name })).Checks; } catch (e) { main.append(errorBox(e)); }
  const grid = el('div', { class: 'map' });
  for (const name of t.entities) {
    const e = t.model.entities[name];
    const pkT = e.keys?.[t.keys.table.pk];
    const mates = t.entities.filter((o) => o !== name && t.model.entities[o].keys?.[t.keys.table.pk] === pkT);
    // a multi-attribute key's attributes: each a template or a plain attribute (any, when none are declared)
    const gives = (k) => e.keys?.[k] !== undefined || !e.attributes || k in e.attributes;
    const ixs = Object.entries(t.keys.indexes).filter(([, ix]) => (ix.multi ? M.keyAttributes(ix).every(gives) : e.keys?.[ix.pk] !== undefined)).map(([n]) => n);
    const pats = checks.filter((c) => c.kind === 'pattern' && (c.entities || []).includes(name));
    grid.append(el('div', { class: `card ${entityClass(t, name)}`, 'data-entity': name },
      el('h3', {}, badge(t, name)),
      el('dl', {}, Object.entries(e.keys || {}).map(([k, v]) => [el('dt', {}, k), el('dd', {}, el('code', {}, v))])),
      el('p', {}, 'Indexes: ', ixs.join(', ') || 'none'),
      el('p', {}, 'Same partition as: ', mates.length ? mates.map((m) => badge(t, m)) : 'no other entity'),
      el('p', {}, 'Read by: ', pats.length ? pats.map((p) => el('code', { class: 'pat' }, p.name)) : el('span', { class: 'bad' }, 'no pattern'))));
  }
  main.append(grid);
  status(`${t.name} · entity map`);
}

// ---------- the model ----------

// The line of the model text an error is about: JSON's position, else the
// first quoted name of the message ("pattern \"p\"") found as a key.
function errorLine(text, message) {
  let m = /line (\d+)/.exec(message);
  if (m) return Number(m[1]);
  m = /position (\d+)/.exec(message);
  if (m) return text.slice(0, Number(m[1])).split('\n').length;
  const names = [...message.matchAll(/"([^"]+)"/g)].map((x) => x[1]);
  for (const n of names.reverse()) {
    const i = text.indexOf(`"${n}"`);
    if (i >= 0) return text.slice(0, i).split('\n').length;
  }
  return null;
}

async function modelView(main, t) {
  const area = el('textarea', { id: 'model-text', spellcheck: 'false', rows: 30, 'aria-label': 'model document' });
  area.value = t.model ? JSON.stringify(t.model, null, 2) : '';
  const gutter = el('pre', { class: 'gutter', 'aria-hidden': 'true' });
  const msg = el('div', { id: 'model-msg', role: 'status' });
  const syncGutter = () => { gutter.textContent = area.value.split('\n').map((_, i) => i + 1).join('\n'); gutter.scrollTop = area.scrollTop; };
  area.addEventListener('input', syncGutter);
  area.addEventListener('scroll', () => { gutter.scrollTop = area.scrollTop; });
  const showError = (type, message) => {
    syncGutter();
    msg.textContent = '';
    const line = errorLine(area.value, message);
    msg.append(el('div', { class: 'error', 'data-line': line ?? '' }, line ? el('strong', {}, `line ${line}: `) : null, `${type}: ${message}`));
    if (line) {
      const lines = area.value.split('\n');
      const start = lines.slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
      area.focus();
      area.setSelectionRange(start, start + lines[line - 1].length);
      gutter.scrollTop = area.scrollTop;
    }
  };
  const save = async () => {
    let doc;
    try { doc = area.value.trim() === '' ? null : JSON.parse(area.value); } catch (e) { showError('SyntaxError', e.message); return; }
    try {
      const r = await call('StDesign_Studio.SetModel', { TableName: t.name, Model: doc });
      t.model = r.Model;
      t.entities = t.model?.entities ? Object.keys(t.model.entities).sort() : [];
      msg.textContent = '';
      msg.append(el('div', { class: 'ok' }, t.model ? `Saved: ${plural(t.entities.length, 'entity', 'entities')}, ${plural(Object.keys(t.model.patterns || {}).length, 'pattern')}.` : 'Model removed.'));
    } catch (e) { showError(e.type || 'Error', e.message); }
  };
  main.append(el('p', { class: 'note' }, 'The model document (docs/studio.md). Saving validates it with st_set_model; an error points at its line. Setting a model needs the ownership of the table.'),
    el('div', { class: 'editor' }, gutter, area),
    el('p', {}, el('button', { type: 'button', id: 'model-save', onclick: save }, 'Validate and save')), msg);
  if (!t.model) {
    const r = await call('Scan', { TableName: t.name, Limit: 500 });
    const inferred = M.inferModel(r.Items, t.keys);
    main.append(el('h3', {}, 'Entities inferred from the keys of the first ', plural(r.Items.length, 'item')),
      el('ul', { id: 'inferred' }, Object.entries(inferred.entities).map(([n, e]) => el('li', {}, el('strong', {}, n), ' ', Object.entries(e.keys).map(([k, v]) => `${k} = ${v}`).join(', '), el('span', { class: 'note' }, ` (${e.description})`)))),
      el('p', {}, el('button', { type: 'button', id: 'use-inferred', onclick: () => { area.value = JSON.stringify(inferred, null, 2); syncGutter(); } }, 'Start from these')));
  }
  syncGutter();
  status(`${t.name} · model`);
}

// ---------- access patterns ----------

async function patternsView(main, t) {
  if (!t.model?.patterns) { main.append(el('p', { class: 'note' }, 'No access patterns: add "patterns" to the model.')); return; }
  let checks = [];
  let costs = [];
  try {
    [checks, costs] = await Promise.all([
      call('StDesign_Studio.CheckModel', { TableName: t.name }).then((r) => r.Checks),
      call('StDesign_Studio.ModelCost', { TableName: t.name }).then((r) => r.Costs)]);
  } catch (e) { main.append(errorBox(e)); }
  const readPrice = el('input', { id: 'price-read', type: 'number', step: 'any', min: 0, value: '0.125', class: 'short' });
  const writePrice = el('input', { id: 'price-write', type: 'number', step: 'any', min: 0, value: '0.625', class: 'short' });
  main.append(el('p', { class: 'prices' }, 'On-demand prices: $', readPrice, ' per million read units, $', writePrice, ' per million write units (us-east-1 list prices by default).'));
  const endpoint = location.origin;
  for (const [name, p] of Object.entries(t.model.patterns)) {
    const check = checks.find((c) => c.kind === 'pattern' && c.name === name);
    const cost = costs.find((c) => c.pattern === name);
    const space = p.index ? t.keys.indexes[p.index] : t.keys.table;
    const params = M.patternParams(t.model, p);
    const example = p.example || check?.measured_with?.[0] || {};
    const inputs = Object.fromEntries(params.map((n) => [n, el('input', { name: n, value: example[n] ?? '', spellcheck: 'false', 'aria-label': n })]));
    const rate = el('input', { type: 'number', min: 0, step: 'any', value: p.rate ?? 1, class: 'short rate' });
    const out = el('div', { class: 'result' });
    const run = async () => {
      out.textContent = '';
      const values = Object.fromEntries(Object.entries(inputs).map(([n, i]) => [n, i.value]));
      try {
        let op = p.op;
        let req;
        let items;
        let units;
        if (p.op === 'PutItem') {
          const types = t.model.entities?.[p.entity]?.attributes || {};
          const typed = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '').map(([n, v]) => [n, types[n] === 'N' ? { N: v } : { S: v }]));
          const r = await call('StDesign_Studio.RunPattern', { TableName: t.name, Pattern: name, Parameters: typed });
          items = r.Items;
          req = { TableName: t.name, Item: items[0] };
          units = cost?.write_units ?? null;
        } else {
          req = M.patternRequest(t.name, t.keys, p, values);
          const r = await call(op, req);
          items = r.Items ?? (r.Item ? [r.Item] : []);
          units = r.ConsumedCapacity?.CapacityUnits ?? 0;
        }
        const perMillion = Number(p.op === 'PutItem' ? writePrice.value : readPrice.value);
        const monthly = units == null ? null : units * Number(rate.value) * 730 * 3600 / 1e6 * perMillion;
        out.append(el('p', { class: 'capacity' },
          el('strong', {}, plural(items.length, 'item')), ` · consumed ${units ?? '?'} ${p.op === 'PutItem' ? 'WCU' : 'RCU'}`,
          monthly == null ? '' : ` · at ${rate.value} calls/s: $${monthly.toFixed(2)} a month on demand`));
        if (p.op === 'Scan') out.append(el('p', { class: 'suggest' }, M.scanSuggestion(p)));
        out.append(groupedTable(t, items, space, [...new Set([...M.keyAttributes(space), t.keys.table.pk, t.keys.table.sk].filter(Boolean))], { expand: true }));
        const code = M.codeFor(op, req, endpoint, 'us-east-1');
        const pre = el('pre', { class: 'code', 'data-lang': 'boto3' }, code.boto3);
        const tabs = el('div', { class: 'codetabs' }, [['boto3', 'boto3'], ['js', 'JS SDK v3 DocumentClient'], ['cli', 'aws-cli'], ['partiql', 'PartiQL']].map(([k, label]) => el('button', {
          type: 'button', 'data-code': k, onclick: () => { pre.textContent = code[k]; pre.dataset.lang = k; },
        }, label)));
        out.append(tabs, pre);
        out.dataset.items = items.length;
        out.dataset.units = units ?? '';
        out.dataset.code = JSON.stringify(code);
      } catch (e) { out.append(errorBox(e)); out.dataset.items = 'error'; }
      status(`${t.name} · ran ${name}`);
    };
    const findings = check ? (check.ok ? [el('span', { class: 'ok' }, 'ok')] : (check.findings || []).map((f) => el('li', { class: 'bad' }, f))) : [];
    main.append(el('section', { class: 'pattern', 'data-pattern': name },
      el('h3', {}, name, ' ', el('span', { class: 'op' }, p.op, p.index ? ` on ${p.index}` : '')),
      el('p', {}, el('code', { class: 'keycond' }, M.describeKey(p, space || {}))),
      p.description ? el('p', { class: 'note' }, p.description) : null,
      el('p', { class: 'measured' }, check && p.op !== 'PutItem' ? `measured on the stored items: ${check.read_per_call ?? '?'} read, ${check.returned_per_call ?? '?'} returned per call` : '',
        cost ? ` · ${cost.read_units ?? 0} RCU / ${cost.write_units ?? 0} WCU per call, $${cost.on_demand_monthly ?? '?'} a month at ${cost.calls_per_second}/s (st_model_cost)` : ''),
      el('ul', { class: 'findings' }, findings),
      el('form', { class: 'params', onsubmit: (ev) => { ev.preventDefault(); run(); } },
        params.map((n) => el('label', {}, `${n} `, inputs[n])), el('label', {}, 'calls/s ', rate), el('button', { type: 'submit' }, 'Run')),
      out));
  }
  status(`${t.name} · access patterns`);
}

// ---------- items ----------

async function itemsView(main, t) {
  const area = el('textarea', { id: 'item-text', rows: 12, spellcheck: 'false', 'aria-label': 'item' });
  const msg = el('div', { id: 'item-msg', role: 'status' });
  const cond = el('input', { id: 'item-condition', placeholder: 'optional ConditionExpression, e.g. attribute_not_exists(PK)', spellcheck: 'false' });
  area.value = state.editItem ? JSON.stringify(M.itemToPlain(state.editItem), null, 2) : JSON.stringify({ [t.keys.table.pk]: '', ...(t.keys.table.sk ? { [t.keys.table.sk]: '' } : {}) }, null, 2);
  const itemOf = () => { const v = JSON.parse(area.value); if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('the item must be a JSON object'); return v; };
  const keyOf = (v) => Object.fromEntries([t.keys.table.pk, t.keys.table.sk].filter(Boolean).map((k) => [k, M.toTyped(v[k])]));
  const done = (what, r) => { msg.textContent = ''; msg.append(el('div', { class: 'ok' }, what, r?.ConsumedCapacity ? ` (${r.ConsumedCapacity.CapacityUnits} WCU)` : '')); };
  const fail = (e) => { msg.textContent = ''; msg.append(errorBox(e)); };
  const withCond = (req) => (cond.value ? { ...req, ConditionExpression: cond.value } : req);
  const put = async () => {
    try {
      const v = itemOf();
      const r = await call('PutItem', withCond({ TableName: t.name, Item: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, M.toTyped(x)])), ReturnConsumedCapacity: 'TOTAL' }));
      done('Put.', r);
    } catch (e) { fail(e); }
  };
  const update = async () => {
    try {
      const v = itemOf();
      const keyNames = [t.keys.table.pk, t.keys.table.sk].filter(Boolean);
      const rest = Object.entries(v).filter(([k]) => !keyNames.includes(k));
      if (!rest.length) throw new Error('nothing to update: give attributes beside the key');
      const names = {}; const values = {};
      rest.forEach(([k, x], i) => { names[`#a${i}`] = k; values[`:v${i}`] = M.toTyped(x); });
      const r = await call('UpdateItem', withCond({ TableName: t.name, Key: keyOf(v), UpdateExpression: `SET ${rest.map((_, i) => `#a${i} = :v${i}`).join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnConsumedCapacity: 'TOTAL' }));
      done('Updated.', r);
    } catch (e) { fail(e); }
  };
  const del = async () => {
    try {
      const r = await call('DeleteItem', withCond({ TableName: t.name, Key: keyOf(itemOf()), ReturnValues: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL' }));
      done(r.Attributes ? 'Deleted.' : 'No such item: nothing deleted.', r);
    } catch (e) { fail(e); }
  };
  main.append(el('p', { class: 'note' }, 'An item as plain JSON (strings, numbers, booleans, null, lists and maps). Click an item in a view to edit it here. Put replaces the whole item, Update sets the attributes given, Delete takes the key.'),
    area, el('p', {}, cond),
    el('p', {}, el('button', { type: 'button', id: 'item-put', onclick: put }, 'Put'), ' ', el('button', { type: 'button', id: 'item-update', onclick: update }, 'Update'), ' ', el('button', { type: 'button', id: 'item-delete', onclick: del }, 'Delete')), msg);
  status(`${t.name} · items`);
}

// ---------- hot partitions ----------

async function hotView(main, t) {
  const box = el('div', { id: 'hot' });
  main.append(el('p', { class: 'note' }, 'The traffic counters per partition key value (table and GSIs), refreshed every 5 s while this view is open; DynamoDB serves at most 3,000 read units and 1,000 write units per second per partition.'), box);
  const draw = async () => {
    try {
      const [h, p] = await Promise.all([call('StDesign_Studio.HotPartitions', { TableName: t.name, Top: 20 }), call('StDesign_Studio.Partitions', { TableName: t.name, Limit: 10 })]);
      box.textContent = '';
      const cols = ['index_name', 'partition_key', 'read_units', 'write_units', 'peak_read_units', 'peak_write_units', 'limit_share', 'advice'];
      box.append(el('h3', {}, 'Hottest partitions'), h.HotPartitions.length ? el('table', { class: 'grid', id: 'hot-table' },
        el('thead', {}, el('tr', {}, cols.map((c) => el('th', {}, c.replace(/_/g, ' '))))),
        el('tbody', {}, h.HotPartitions.map((r) => el('tr', { class: r.limit_share > 0.8 ? 'hot' : '' }, cols.map((c) => el('td', { class: typeof r[c] === 'number' ? 'num' : '' }, c === 'index_name' ? r[c] ?? 'table' : r[c] ?? '')))))) : el('p', { class: 'note' }, 'Nothing counted yet.'));
      const pcols = ['index_name', 'partition_key', 'items', 'bytes', 'share'];
      box.append(el('h3', {}, 'Largest item collections'), el('table', { class: 'grid' },
        el('thead', {}, el('tr', {}, pcols.map((c) => el('th', {}, c.replace(/_/g, ' '))))),
        el('tbody', {}, p.Partitions.map((r) => el('tr', {}, pcols.map((c) => el('td', {}, c === 'index_name' ? r[c] ?? 'table' : c === 'bytes' ? fmtBytes(r[c]) : c === 'share' ? `${(100 * r[c]).toFixed(1)}%` : r[c] ?? '')))))),
      el('p', { class: 'note' }, p.Skew.map((s) => `${s.index_name ?? 'table'}: ${plural(Number(s.partitions), 'partition')}, the largest ${(100 * s.largest_share).toFixed(1)}% of the bytes, gini ${Number(s.gini).toFixed(2)}${s.sampled ? ' (sampled)' : ''}`).join('; ')));
      box.dataset.refreshed = String(Date.now());
    } catch (e) { box.textContent = ''; box.append(errorBox(e)); }
    status(`${t.name} · hot partitions`);
  };
  await draw();
  timer = setInterval(draw, 5000);
}

// ---------- routing ----------

const VIEWS = [['aggregate', 'Aggregate'], ['facet', 'Facets'], ['map', 'Entity map'], ['model', 'Model'], ['patterns', 'Access patterns'], ['items', 'Edit items'], ['hot', 'Hot partitions']];

async function tableView(main, name, view, arg) {
  const t = await loadTable(name);
  const href = (v, a) => `#/t/${encodeURIComponent(name)}/${v}${a ? `/${encodeURIComponent(a)}` : ''}`;
  const gsis = Object.keys(t.keys.indexes);
  main.append(el('nav', { class: 'tabs' },
    VIEWS.slice(0, 2).map(([v, l]) => el('a', { href: href(v), class: view === v ? 'active' : '' }, l)),
    gsis.map((g) => el('a', { href: href('index', g), class: view === 'index' && arg === g ? 'active' : '' }, `${g} (${t.keys.indexes[g].kind})`)),
    VIEWS.slice(2).map(([v, l]) => el('a', { href: href(v), class: view === v ? 'active' : '' }, l))));
  const T = t.desc.Table;
  main.append(el('p', { class: 'summary' }, el('strong', {}, name), t.desc.counted ? ` · ${plural(T.ItemCount ?? 0, 'item')}, ${fmtBytes(T.TableSizeBytes)}` : '', ` · keys ${[t.keys.table.pk, t.keys.table.sk].filter(Boolean).join(', ')}`,
    t.model?.description ? el('span', { class: 'note' }, ` · ${t.model.description}`) : null));
  const body = el('div', { id: 'view', 'data-view': view });
  main.append(body);
  if (view === 'aggregate') await aggregateView(body, t, null);
  else if (view === 'index') await aggregateView(body, t, arg);
  else if (view === 'facet') await facetView(body, t, arg);
  else if (view === 'map') await mapView(body, t);
  else if (view === 'model') await modelView(body, t);
  else if (view === 'patterns') await patternsView(body, t);
  else if (view === 'items') await itemsView(body, t);
  else if (view === 'hot') await hotView(body, t);
  else body.append(el('p', {}, 'Unknown view.'));
}

async function render() {
  if (timer) { clearInterval(timer); timer = null; }
  const main = $('#main');
  main.textContent = '';
  if (auth === 'sigv4' && !hasKey()) { $('#login').hidden = false; status('sign in'); return; }
  $('#login').hidden = true;
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  $('#crumb').textContent = parts[0] === 't' ? ` / ${parts[1]}` : '';
  document.body.dataset.ready = '0';
  try {
    if (parts[0] === 't' && parts[1]) await tableView(main, parts[1], parts[2] || 'aggregate', parts[3]);
    else await tablesView(main);
    if (parts[0] !== 't') status('tables');
  } catch (e) {
    main.append(errorBox(e));
    status(e.message, true);
  }
  document.body.dataset.ready = '1';
}

$('#who').textContent = auth === 'sigv4' ? 'SigV4' : 'trust (loopback)';
$('#login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  setKey($('#key-id').value.trim(), $('#key-secret').value, $('#key-region').value.trim());
  $('#key-secret').value = '';
  $('#who').textContent = `SigV4 as ${$('#key-id').value.trim()}`;
  render();
});
window.addEventListener('hashchange', render);
render();
