// The design studio's page in a real browser: Debian's Chromium driven by
// puppeteer-core (test/scripts/studio_live.sh starts the endpoint).
//
//   node browser_test.mjs trust   the e-commerce table's views, patterns,
//                                 model edits, item edits, at 1280 and 800 px
//   node browser_test.mjs sigv4   signed in with a key of a role without
//                                 SELECT: no item shown; with the owner's
//                                 key: the items
//
// Env: STUDIO_URL (http://127.0.0.1:port), SHOTS (a directory for the
// screenshots), CHROMIUM (the browser), KEY_NOSELECT / KEY_OWNER
// ("id:secret", sigv4).  Prints "ok N - ..." / "not ok N - ..." lines and
// "studio_live_browser: N passed, N failed".
import puppeteer from 'puppeteer-core';
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const mode = process.argv[2] || 'trust';
const base = process.env.STUDIO_URL;
const shots = process.env.SHOTS || mkdtempSync(join(tmpdir(), 'studio-shots-'));
mkdirSync(shots, { recursive: true });
let passed = 0;
let failed = 0;
let n = 0;
function check(what, ok, detail = '') {
  n++;
  if (ok) { passed++; console.log(`ok ${n} - ${what}`); } else { failed++; console.log(`not ok ${n} - ${what}${detail ? ` (${detail})` : ''}`); }
}

// BROWSER=firefox: Debian's Firefox (FIREFOX, /usr/bin/firefox-esr by
// default) through WebDriver BiDi, the same checks
const firefox = process.env.BROWSER === 'firefox';
const browser = await puppeteer.launch(firefox ? {
  browser: 'firefox',
  executablePath: process.env.FIREFOX || '/usr/bin/firefox-esr',
  headless: true,
} : {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-dev-shm-usage'],
});

async function newPage(width) {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900 });
  page.errors = [];
  page.refusals = 0;   // calls refused on purpose: the browser logs each 4xx
  page.requests = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('request', (r) => page.requests.push(r.url()));
  page.on('dialog', async (d) => { page.errors.push(`dialog: ${d.message()}`); await d.dismiss(); });
  return page;
}

const ready = (page) => page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
async function go(page, hash) {
  await page.evaluate((h) => { document.body.dataset.ready = '0'; location.hash = h; }, hash);
  await ready(page);
}
const shot = (page, name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));
const T = '#/t/ECommerceTable';

async function runPattern(page, name, params) {
  const sec = `section.pattern[data-pattern="${name}"]`;
  for (const [k, v] of Object.entries(params)) {
    await page.$eval(`${sec} input[name="${k}"]`, (i, val) => { i.value = val; }, v);
  }
  await page.$eval(`${sec} .result`, (r) => { delete r.dataset.items; });
  // centred: Firefox's click scrolls only as far as needed, where the sticky status line can cover it
  await page.$eval(`${sec} form.params button[type=submit]`, (b) => b.scrollIntoView({ block: 'center' }));
  await page.click(`${sec} form.params button[type=submit]`);
  await page.waitForSelector(`${sec} .result[data-items]`, { timeout: 20000 });
  return page.$eval(`${sec} .result`, (r) => ({ items: r.dataset.items, units: r.dataset.units, code: r.dataset.code ? JSON.parse(r.dataset.code) : null, text: r.textContent }));
}

async function trust(width) {
  const tag = `${width}px`;
  const page = await newPage(width);
  await page.goto(`${base}/studio`, { waitUntil: 'domcontentloaded' });
  await ready(page);
  const rows = await texts(page, '#tables tbody tr td:first-child');
  check(`${tag}: the tables list shows ECommerceTable`, rows.includes('ECommerceTable'), rows.join(','));
  const modelCell = await page.$$eval('#tables tbody tr', (trs) => trs.find((t) => t.cells[0].textContent === 'ECommerceTable')?.cells[5].textContent);
  check(`${tag}: with its model (3 entities)`, modelCell === '3 entities', modelCell);
  await shot(page, `tables-${tag}`);

  await page.evaluate(() => { document.body.dataset.ready = '0'; });
  await page.click('a.table-link[href="#/t/ECommerceTable/aggregate"]');
  await ready(page);
  check(`${tag}: the aggregate view opens`, (await page.$eval('#view', (v) => v.dataset.view)) === 'aggregate');
  const part = 'tr.part[data-pk="CUST#123"]';
  check(`${tag}: a partition of several items is one collapsed line`, await page.$eval(part, (r) => r.classList.contains('collapsed') && r.textContent.includes('4 items')));
  check(`${tag}: its items are hidden`, await page.$$eval('tr.item[data-pk="CUST#123"]', (rs) => rs.length === 4 && rs.every((r) => r.hidden)));
  check(`${tag}: a one-item partition is one line, no partition row`,
    (await page.$$('tr.part[data-pk="CUST#789"]')).length === 0 && (await page.$$('tr.item[data-pk="CUST#789"]')).length === 1);
  await page.click(part);
  check(`${tag}: expanding shows its 4 items`, await page.$$eval('tr.item[data-pk="CUST#123"]', (rs) => rs.filter((r) => !r.hidden).length === 4));
  const hdr = await texts(page, 'tr.hdr th');
  check(`${tag}: every attribute is shown (created_at, product_name not declared by Order)`, hdr.includes('created_at') && hdr.includes('email'), hdr.join(','));
  check(`${tag}: GSI key attributes are marked`, (await page.$$('th.gsikey')).length > 0);
  check(`${tag}: entity colours: badges per entity`, (await page.$$('tr.item .badge.e1')).length >= 3);
  await shot(page, `aggregate-${tag}`);

  // hostile values stay text
  const inert = await page.evaluate(() => ({ injected: window.injected, b: !!document.querySelector('#injected'), img: document.querySelectorAll('main img').length, scripts: document.querySelectorAll('main script').length }));
  check(`${tag}: hostile item values render inert`, inert.injected === undefined && !inert.b && inert.img === 0 && inert.scripts === 0, JSON.stringify(inert));
  const bodyText = await page.$eval('main', (m) => m.textContent);
  check(`${tag}: and are shown as text`, bodyText.includes('<img src=x onerror=alert(1)>') && bodyText.includes('<script>alert(2)</script>'));

  // search by key prefix, then by entity
  await page.$eval('#search-prefix', (i) => { i.value = 'ORDER#'; });
  await page.click('form.search button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#search-prefix')?.value === 'ORDER#' && document.querySelectorAll('tr.item').length > 0);
  const pks = await page.$$eval('tr.item, tr.part', (rs) => rs.map((r) => r.dataset.pk));
  check(`${tag}: search by key prefix shows only ORDER# partitions`, pks.length > 0 && pks.every((p) => p.startsWith('ORDER#')), pks.join(','));
  await page.$eval('#search-prefix', (i) => { i.value = ''; });
  await page.select('#search-entity', 'Order');
  await page.click('form.search button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#search-entity')?.value === 'Order' && [...document.querySelectorAll('tr.item')].length > 0 && [...document.querySelectorAll('tr.item')].every((r) => r.dataset.entity === 'Order'), { timeout: 10000 }).catch(() => {});
  const ents = await page.$$eval("tr.item", (rs) => rs.map((r) => r.dataset.entity));
  const entPks = await page.$$eval("tr.item", (rs) => rs.map((r) => r.dataset.pk));
  check(`${tag}: search by entity shows only orders`, ents.length >= 4 && ents.every((e) => e === "Order") && entPks.includes("CUST#456"), entPks.join(","));
  await page.select('#search-entity', '');
  await page.click('form.search button[type=submit]');
  await page.waitForFunction(() => document.querySelector('#search-entity')?.value === '');

  // facet view
  await go(page, `${T}/facet/Order`);
  const facetHead = await texts(page, 'table.facet th.template');
  check(`${tag}: the Order facet names its columns by key template`, facetHead.some((h) => h.includes('CUST#{customer_id}')) && facetHead.some((h) => h.includes('STATUS#{status}')), facetHead.join('|'));
  const derivedCells = await texts(page, 'table.facet td.derived');
  check(`${tag}: attributes the templates hold are shown (customer_id 123)`, derivedCells.includes('123'), derivedCells.join(','));
  await shot(page, `facet-${tag}`);

  // GSI view: the index keys, then the table's keys
  await go(page, `${T}/index/GSI1`);
  const keyHead = await texts(page, 'table.agg thead th.key');
  check(`${tag}: the GSI view shows its keys with the table's beside them`, keyHead.join(',') === 'GSI1PK,GSI1SK,PK,SK', keyHead.join(','));
  await shot(page, `gsi-${tag}`);

  // entity map
  await go(page, `${T}/map`);
  const cards = await page.$$eval('.card', (cs) => cs.map((c) => c.dataset.entity));
  check(`${tag}: the entity map has the three entities`, cards.join(',') === 'Customer,Order,OrderItem', cards.join(','));
  const orderRead = await page.$eval('.card[data-entity="Order"]', (c) => c.textContent);
  check(`${tag}: with the patterns that read them`, orderRead.includes('orders_for_customer'));
  await shot(page, `map-${tag}`);

  // access patterns: the seeds' six
  await go(page, `${T}/patterns`);
  const expect = [
    ['get_customer', { customer_id: '123' }, '1'],
    ['orders_for_customer', { customer_id: '123' }, '3'],
    ['orders_in_range', { customer_id: '123', from: '2026-07-01', to: '2026-07-31#~' }, '2'],
    ['order_items', { order_id: '001' }, '2'],
    ['order_status', { order_id: '001' }, '1'],
    ['new_order', { customer_id: `55${width}`, order_id: `9${width}`, order_date: '2026-09-01', status: 'pending', total: '10' }, '1'],
  ];
  let code = null;
  for (const [name, params, items] of expect) {
    const r = await runPattern(page, name, params);
    check(`${tag}: pattern ${name} returns ${items} item(s)`, r.items === items, r.text.slice(0, 200));
    if (name !== 'new_order') check(`${tag}: pattern ${name} shows its consumed capacity`, Number(r.units) > 0 && /consumed [\d.]+ RCU/.test(r.text), r.units);
    if (name === 'orders_for_customer') code = r.code;
  }
  await shot(page, `patterns-${tag}`);
  check(`${tag}: the code to copy in four forms`, code && ['boto3', 'js', 'cli', 'partiql'].every((k) => code[k]?.length > 20));
  if (width === 1280 && code) {
    const dir = mkdtempSync(join(here, '.code-'));
    try {
      writeFileSync(join(dir, 'q.py'), code.boto3);
      const py = execFileSync('python3', [join(dir, 'q.py')], { encoding: 'utf8', env: { ...process.env, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' } });
      check('the boto3 code shown runs and returns the 3 orders', (py.match(/ORDER#/g) || []).length >= 3, py.slice(0, 200));
      writeFileSync(join(dir, 'q.mjs'), code.js);
      const js = execFileSync('node', [join(dir, 'q.mjs')], { encoding: 'utf8', env: { ...process.env, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' } });
      const got = JSON.parse(js);
      check('the JS SDK DocumentClient code shown runs and returns the 3 orders', got.length === 3 && got.every((i) => i.SK.startsWith('ORDER#')), js.slice(0, 200));
      check('PartiQL form is readable', code.partiql === `SELECT * FROM "ECommerceTable" WHERE "PK" = 'CUST#123' AND begins_with("SK", 'ORDER#')`, code.partiql);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  }

  // the model: one valid change, one invalid
  await go(page, `${T}/model`);
  const model = JSON.parse(await page.$eval('#model-text', (a) => a.value));
  model.patterns.pending_scan = { op: 'Scan', filter: '#s = :s', names: { '#s': 'status' }, values: { ':s': '{status}' }, rate: 1 };
  await page.$eval('#model-text', (a, v) => { a.value = v; }, JSON.stringify(model, null, 2));
  await page.click('#model-save');
  await page.waitForSelector('#model-msg .ok, #model-msg .error');
  check(`${tag}: a valid model change is saved`, (await page.$eval('#model-msg', (m) => m.textContent)).startsWith('Saved'), await page.$eval('#model-msg', (m) => m.textContent));
  const bad = JSON.parse(JSON.stringify(model));
  bad.patterns.broken = { op: 'Query', index: 'NoSuchIndex', pk: 'X#{x}' };
  const badText = JSON.stringify(bad, null, 2);
  await page.$eval('#model-text', (a, v) => { a.value = v; }, badText);
  page.refusals++;
  await page.click('#model-save');
  await page.waitForSelector('#model-msg .error');
  const err = await page.$eval('#model-msg .error', (e) => ({ text: e.textContent, line: e.dataset.line }));
  const wantLine = badText.split('\n').findIndex((l) => l.includes('"broken"')) + 1;
  check(`${tag}: an invalid change is refused with st_set_model's error at its line`, err.text.includes('ValidationException') && err.text.includes('Invalid model') && Number(err.line) === wantLine, `${err.text} line ${err.line} want ${wantLine}`);
  await shot(page, `model-${tag}`);
  await page.$eval('#model-text', (a, v) => { a.value = v; }, '{"entities": ');
  await page.click('#model-save');
  await page.waitForFunction(() => document.querySelector('#model-msg .error')?.textContent.includes('SyntaxError'));
  check(`${tag}: a JSON syntax error is shown before any call`, true);

  // the Scan pattern: its GSI suggestion
  await go(page, `${T}/patterns`);
  const scan = await runPattern(page, 'pending_scan', { status: 'pending' });
  check(`${tag}: a Scan pattern suggests the GSI that makes it a Query`, scan.text.includes('A GSI with partition key status would turn this Scan into a Query'), scan.text.slice(0, 300));
  check(`${tag}: and its check finding (needs a Scan)`, (await page.$eval('section.pattern[data-pattern="pending_scan"] .findings', (f) => f.textContent)).toLowerCase().includes('scan'));

  // a GSI with a multi-attribute key: its view and a Query pattern of it
  const TT = '#/t/Tenants';
  await go(page, `${TT}/index/ByTenant`);
  const multiHead = await texts(page, 'table.agg thead th.key');
  check(`${tag}: a multi-attribute GSI's view shows all its key attributes, then the table's`, multiHead.join(',') === 'tenant,tier,day,ref,PK,SK', multiHead.join(','));
  const acme2 = 'tr.part[data-pk=\'["acme", "2"]\']';
  check(`${tag}: its partitions are named by all its HASH attributes`,
    (await page.$$(acme2)).length === 1 && await page.$eval(acme2, (r) => r.textContent.includes('3 items'))
      && (await page.$$('tr.item[data-pk=\'["acme", "3"]\']')).length === 1, await page.$$eval('tr.part, tr.item', (rs) => rs.map((r) => r.dataset.pk).join(' ')));
  await page.click(acme2);
  const dayCells = await page.$$eval('tr.item[data-pk=\'["acme", "2"]\']', (rs) => rs.filter((r) => !r.hidden).map((r) => r.cells[2].textContent + '/' + r.cells[3].textContent));
  check(`${tag}: in its order (day, then ref)`, dayCells.join(',') === '20260104/ORD#o3,20260105/ORD#o1,20260105/ORD#o2', dayCells.join(','));
  await shot(page, `multi-gsi-${tag}`);
  await go(page, `${TT}/patterns`);
  const multiCond = await page.$eval('section.pattern[data-pattern="orders_of_day"] .keycond', (c) => c.textContent);
  check(`${tag}: a Query pattern of it names every key attribute of its condition`,
    multiCond === 'tenant = {tenant} and tier = {tier} and day = {day} and begins_with(ref, ORD#)', multiCond);
  const mq = await runPattern(page, 'orders_of_day', { tenant: 'acme', tier: '2', day: '20260105' });
  check(`${tag}: and runs as a Query of the index (2 items, its capacity)`, mq.items === '2' && Number(mq.units) > 0, mq.text.slice(0, 200));
  check(`${tag}: its PartiQL`, mq.code?.partiql === `SELECT * FROM "Tenants"."ByTenant" WHERE "tenant" = 'acme' AND "tier" = 2 AND "day" = 20260105 AND begins_with("ref", 'ORD#')`, mq.code?.partiql);
  check(`${tag}: its check ran (measured on the stored items)`, /measured on the stored items: [\d.]+ read, [\d.]+ returned per call/.test(await page.$eval('section.pattern[data-pattern="orders_of_day"] .measured', (m) => m.textContent)),
    await page.$eval('section.pattern[data-pattern="orders_of_day"] .measured', (m) => m.textContent));
  if (width === 1280 && mq.code) {
    const dir = mkdtempSync(join(here, '.code-'));
    try {
      writeFileSync(join(dir, 'q.py'), mq.code.boto3);
      const py = execFileSync('python3', [join(dir, 'q.py')], { encoding: 'utf8', env: { ...process.env, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' } });
      check('the boto3 code of the multi-attribute Query runs and returns its 2 orders', (py.match(/ORD#o[12]/g) || []).length === 2 && !py.includes('ORD#o3'), py.slice(0, 300));
    } finally { rmSync(dir, { recursive: true, force: true }); }
  }
  // its model edited: a Query pattern of the index saved, one skipping a sort-key attribute refused
  await go(page, `${TT}/model`);
  const tmodel = JSON.parse(await page.$eval('#model-text', (a) => a.value));
  tmodel.patterns[`of_tier_${width}`] = { op: 'Query', index: 'ByTenant', pk: { tenant: '{tenant}', tier: '{tier}' } };
  await page.$eval('#model-text', (a, v) => { a.value = v; }, JSON.stringify(tmodel, null, 2));
  await page.click('#model-save');
  await page.waitForSelector('#model-msg .ok, #model-msg .error');
  check(`${tag}: a Query pattern of every HASH attribute is saved`, (await page.$eval('#model-msg', (m) => m.textContent)).startsWith('Saved'), await page.$eval('#model-msg', (m) => m.textContent));
  tmodel.patterns.skips = { op: 'Query', index: 'ByTenant', pk: ['{tenant}', '{tier}'], sk: { ref: 'ORD#{order_id}' } };
  await page.$eval('#model-text', (a, v) => { a.value = v; }, JSON.stringify(tmodel, null, 2));
  page.refusals++;
  await page.click('#model-save');
  await page.waitForSelector('#model-msg .error');
  const skipErr = await page.$eval('#model-msg .error', (e) => e.textContent);
  check(`${tag}: one that skips a sort-key attribute is refused with the Query's message`, skipErr.includes('Invalid model: pattern "skips": Query condition missed key schema element: day'), skipErr);
  await go(page, `${TT}/patterns`);
  const tierRun = await runPattern(page, `of_tier_${width}`, { tenant: 'acme', tier: '2' });
  check(`${tag}: the saved pattern runs (3 items)`, tierRun.items === '3', tierRun.text.slice(0, 200));

  // items: put, a refused conditional put, delete
  await go(page, `${T}/items`);
  const item = { PK: `CUST#T${width}`, SK: `CUST#T${width}`, entity_type: 'Customer', name: 'Test "quoted" <b>name</b>' };
  await page.$eval('#item-text', (a, v) => { a.value = v; }, JSON.stringify(item));
  await page.click('#item-put');
  await page.waitForSelector('#item-msg .ok, #item-msg .error');
  check(`${tag}: an item is put`, (await page.$eval('#item-msg', (m) => m.textContent)).startsWith('Put.'));
  await page.$eval('#item-condition', (i) => { i.value = 'attribute_not_exists(PK)'; });
  page.refusals++;
  await page.click('#item-put');
  await page.waitForSelector('#item-msg .error');
  const cerr = await page.$eval('#item-msg', (m) => m.textContent);
  check(`${tag}: DynamoDB's error is shown as DynamoDB words it`, cerr === 'ConditionalCheckFailedException: The conditional request failed', cerr);
  await page.$eval('#item-condition', (i) => { i.value = ''; });
  await go(page, `${T}/aggregate`);
  check(`${tag}: the item put is shown at once`, (await page.$$(`tr.item[data-pk="CUST#T${width}"]`)).length === 1);
  await page.evaluate(() => { document.body.dataset.ready = '0'; });
  await page.$eval(`tr.item[data-pk="CUST#T${width}"]`, (r) => r.click());
  await ready(page);
  check(`${tag}: clicking an item opens it in the editor`, (await page.$eval('#item-text', (a) => a.value)).includes(`CUST#T${width}`));
  await page.click('#item-delete');
  await page.waitForSelector('#item-msg .ok, #item-msg .error');
  check(`${tag}: the item is deleted`, (await page.$eval('#item-msg', (m) => m.textContent)).startsWith('Deleted.'));
  await shot(page, `items-${tag}`);

  // hot partitions: the counters, refreshed while open
  await go(page, `${T}/hot`);
  const t0 = await page.$eval('#hot', (h) => h.dataset.refreshed);
  check(`${tag}: hot partitions show the traffic counted`, (await page.$$('#hot-table tbody tr')).length > 0);
  await page.waitForFunction((t) => document.querySelector('#hot')?.dataset.refreshed !== t, { timeout: 15000 }, t0).catch(() => {});
  check(`${tag}: and refresh while the view is open`, (await page.$eval('#hot', (h) => h.dataset.refreshed)) !== t0);
  await shot(page, `hot-${tag}`);

  // data: URLs are no fetch (Firefox reports its own built-in font as one)
  const foreign = page.requests.filter((u) => !u.startsWith(base) && !u.startsWith('data:'));
  check(`${tag}: the page fetched nothing but the endpoint`, foreign.length === 0, foreign.join(','));
  const refused = page.errors.filter((e) => /Failed to load resource: the server responded with a status of 400/.test(e));
  // Chromium logs each refused call (a 400) as a console error, Firefox none
  check(`${tag}: no console error but the ${page.refusals} calls refused on purpose`,
    refused.length === (firefox ? 0 : page.refusals) && page.errors.length === refused.length, page.errors.join(' | '));
  await page.close();
}

async function sigv4() {
  const page = await newPage(1280);
  await page.goto(`${base}/studio`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#login:not([hidden])');
  check('sigv4: the page asks for an access key', true);
  const login = async (pair) => {
    const [id, secret] = pair.split(':');
    await page.$eval('#key-id', (i, v) => { i.value = v; }, id);
    await page.$eval('#key-secret', (i, v) => { i.value = v; }, secret);
    await page.evaluate(() => { document.body.dataset.ready = '0'; });
    await page.click('#login-form button[type=submit]');
    await ready(page);
  };
  await login(process.env.KEY_OWNER);
  const rows = await texts(page, '#tables tbody tr td:first-child');
  check('sigv4: the owner\'s key lists the table', rows.includes('ECommerceTable'), rows.join(','));
  await go(page, `${T}/aggregate`);
  check('sigv4: and sees its items', (await page.$$('tr.item')).length > 5);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
  check('sigv4: nothing of the key is stored', stored === '{}{}', stored);
  await page.close();

  const p2 = await newPage(1280);
  await p2.goto(`${base}/studio`, { waitUntil: 'domcontentloaded' });
  await p2.waitForSelector('#login:not([hidden])');
  const [id, secret] = process.env.KEY_NOSELECT.split(':');
  await p2.$eval('#key-id', (i, v) => { i.value = v; }, id);
  await p2.$eval('#key-secret', (i, v) => { i.value = v; }, secret);
  await p2.click('#login-form button[type=submit]');
  await ready(p2);
  await go(p2, `${T}/aggregate`);
  const items = (await p2.$$('tr.item')).length;
  const msg = await p2.$eval('main', (m) => m.textContent);
  check('sigv4: a key of a role without SELECT sees no item', items === 0 && /AccessDenied|not authorized|permission/i.test(msg), `${items} items; ${msg.slice(0, 200)}`);
  await shot(p2, 'sigv4-noselect');
  check('sigv4: no console error but the refused calls', p2.errors.every((e) => /status of 400|status of 403/.test(e)), p2.errors.join(' | '));
  await p2.close();
}

try {
  if (mode === 'trust') { await trust(1280); await trust(800); } else await sigv4();
} catch (e) {
  check(`the ${mode} run went to its end`, false, String(e.stack || e));
} finally {
  await browser.close();
}
console.log(`screenshots in ${shots}`);
console.log(`studio_live_browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
