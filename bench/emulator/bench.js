'use strict';
// stdesign's st_api against a local DynamoDB emulator (dynalite) and against
// hand-written SQL, from one Node client process (see README.md).
//
//   node bench.js [--customers N] [--orders-per N] [--seconds S] [--slices K]
//                 [--warmup S] [--clients C] [--ops get,query,gsi,put,update,delete]
//
// Expects the PG* environment of a running server where the extension can be
// created (run.sh provides a throwaway cluster). Starts the emulator itself.
// Each system runs each operation for S seconds in all, as K slices that
// alternate between the systems (dynalite, stdesign, SQL, dynalite, ...), so
// that whatever else the machine does is shared out evenly. Every closed loop
// stops at its deadline or after MAX_OPS requests, whichever comes first; the
// whole process is also bounded by a watchdog.

const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const pg = require('pg');
// the SDK's notice that its releases of 2027 will need a newer Node than 20
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const {
  DynamoDBClient, CreateTableCommand, DescribeTableCommand, BatchWriteItemCommand,
  GetItemCommand, QueryCommand, PutItemCommand, UpdateItemCommand, DeleteItemCommand,
} = require('@aws-sdk/client-dynamodb');

// ---------------------------------------------------------------- options

const opt = {
  customers: 1000, 'orders-per': 19, seconds: 10, slices: 5, warmup: 1, clients: 2,
  ops: 'get,query,gsi,put,update,delete',
};
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in opt) || i + 1 >= process.argv.length) {
    console.error('usage: node bench.js [--customers N] [--orders-per N] [--seconds S] [--slices K] ' +
      '[--warmup S] [--clients C] [--ops get,query,gsi,put,update,delete]');
    process.exit(2);
  }
  opt[k] = k === 'ops' ? process.argv[i + 1] : Number(process.argv[i + 1]);
}
const CUSTOMERS = opt.customers;
const ORDERS_PER = opt['orders-per'];
const SECONDS = opt.seconds;
const SLICES = Math.max(1, Math.round(opt.slices));
const SLICE = SECONDS / SLICES;
const WARMUP = opt.warmup;
const CLIENTS = opt.clients;
const OPS = opt.ops.split(',');
const MAX_OPS = 2000000;            // per loop, whatever the duration
const TABLE = 'Bench';
// Items loaded before each slice for the deletes to remove (DEL#1, DEL#2,
// ...): more than the fastest rate seen here would use; a loop that runs out
// stops early and says so.
const DELETE_RATE = { dynalite: 5000, pg: 40000 };

// Watchdog: the whole run may not take longer than its loops plus set-up.
const budgetMs = (OPS.length * 3 * (SECONDS + WARMUP + 5 * SLICES) + 900) * 1000;
setTimeout(() => { console.error('bench.js: time budget exceeded, stopping'); process.exit(3); }, budgetMs).unref();

// ---------------------------------------------------------------- items

// The seeds' e-commerce shape, as bench/load.sql builds it: per customer a
// profile and ORDERS_PER orders, orders carrying GSI1 keys.
function skOf(o) { return o === 0 ? 'PROFILE' : 'ORDER#2026-' + String(o).padStart(4, '0'); }
function makeItem(c, o) {
  const status = o % 3 === 0 ? 'shipped' : 'pending';
  const item = {
    PK: { S: 'CUST#' + c },
    SK: { S: skOf(o) },
    entity_type: { S: o === 0 ? 'Customer' : 'Order' },
    total: { N: String(((c * 7 + o * 13) % 10000) / 100) },
    status: { S: status },
  };
  if (o !== 0) {
    item.GSI1PK = { S: 'STATUS#' + status + '#' + (c % 500) };
    item.GSI1SK = { S: 'ORDER#' + String(c).padStart(6, '0') + '#' + o };
  }
  return item;
}
function allItems() {
  const items = [];
  for (let c = 1; c <= CUSTOMERS; c++)
    for (let o = 0; o <= ORDERS_PER; o++) items.push(makeItem(c, o));
  return items;
}

const createTable = {
  TableName: TABLE,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [
    { AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' },
    { AttributeName: 'GSI1PK', AttributeType: 'S' }, { AttributeName: 'GSI1SK', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
  GlobalSecondaryIndexes: [{
    IndexName: 'GSI1',
    KeySchema: [{ AttributeName: 'GSI1PK', KeyType: 'HASH' }, { AttributeName: 'GSI1SK', KeyType: 'RANGE' }],
    Projection: { ProjectionType: 'ALL' },
  }],
};

const handDDL = `
CREATE TABLE hand (pk text COLLATE "C" NOT NULL, sk text COLLATE "C" NOT NULL, item jsonb NOT NULL,
                   PRIMARY KEY (pk, sk));
CREATE INDEX hand_gsi1 ON hand (((item -> 'GSI1PK') ->> 'S') COLLATE "C", ((item -> 'GSI1SK') ->> 'S') COLLATE "C")
  WHERE item ? 'GSI1PK' AND item ? 'GSI1SK'`;

// ---------------------------------------------------------------- operations

function rnd(n) { return Math.floor(Math.random() * n); }

// Shared per system: the sequence of new items put (NEW#1, NEW#2, ...), and
// how far the deletes have gone through the DEL# items loaded for them, so
// that every DeleteItem removes an item that exists.
function counters() { return { put: 0, del: 0, deletable: 0 }; }
function delItem(i) { return { PK: { S: 'DEL#' + i }, SK: { S: 'X' }, entity_type: { S: 'Deletable' } }; }

// Each operation: a DynamoDB request (sent as is to both the emulator and
// st_api), and the hand-written SQL that does the same, with its parameters.
// next(ctr) returns null when there is nothing left to do (deletes).
const operations = {
  get: {
    title: 'GetItem',
    api: 'GetItem', cmd: GetItemCommand,
    next() {
      const c = 1 + rnd(CUSTOMERS), o = rnd(ORDERS_PER + 1);
      return {
        req: { TableName: TABLE, Key: { PK: { S: 'CUST#' + c }, SK: { S: skOf(o) } } },
        sql: ['CUST#' + c, skOf(o)],
      };
    },
    sql: 'SELECT item FROM hand WHERE pk = $1 AND sk = $2',
    check: {
      api: (r) => r.Item !== undefined,
      sql: (r) => r.rows.length === 1,
    },
  },
  query: {
    title: `Query (${ORDERS_PER + 1} items)`,
    api: 'Query', cmd: QueryCommand,
    next() {
      const c = 1 + rnd(CUSTOMERS);
      return {
        req: { TableName: TABLE, KeyConditionExpression: 'PK = :pk',
               ExpressionAttributeValues: { ':pk': { S: 'CUST#' + c } } },
        sql: ['CUST#' + c],
      };
    },
    sql: 'SELECT item FROM hand WHERE pk = $1 ORDER BY sk',
    check: {
      api: (r) => r.Count === ORDERS_PER + 1,
      sql: (r) => r.rows.length === ORDERS_PER + 1,
    },
  },
  gsi: {
    title: 'Query GSI1 (Limit 20)',
    api: 'Query', cmd: QueryCommand,
    next() {
      const g = rnd(Math.min(500, CUSTOMERS));
      return {
        req: { TableName: TABLE, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :g',
               ExpressionAttributeValues: { ':g': { S: 'STATUS#pending#' + g } }, Limit: 20 },
        sql: ['STATUS#pending#' + g],
      };
    },
    sql: `SELECT item FROM hand
           WHERE ((item -> 'GSI1PK') ->> 'S') COLLATE "C" = $1 AND item ? 'GSI1PK' AND item ? 'GSI1SK'
           ORDER BY ((item -> 'GSI1SK') ->> 'S') COLLATE "C" LIMIT 20`,
    check: {
      api: (r) => r.Count > 0,
      sql: (r) => r.rows.length > 0,
    },
  },
  put: {
    title: 'PutItem (new item)',
    api: 'PutItem', cmd: PutItemCommand,
    next(ctr) {
      const n = ++ctr.put;
      const item = { PK: { S: 'NEW#' + n }, SK: { S: 'ITEM' }, v: { N: String(n) }, entity_type: { S: 'New' } };
      return {
        req: { TableName: TABLE, Item: item },
        sql: ['NEW#' + n, 'ITEM', JSON.stringify(item)],
      };
    },
    sql: `INSERT INTO hand (pk, sk, item) VALUES ($1, $2, $3)
          ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item`,
    check: { api: () => true, sql: (r) => r.rowCount === 1 },
  },
  update: {
    title: 'UpdateItem (counter)',
    api: 'UpdateItem', cmd: UpdateItemCommand,
    next() {
      const c = 1 + rnd(CUSTOMERS);
      return {
        req: { TableName: TABLE, Key: { PK: { S: 'CUST#' + c }, SK: { S: 'PROFILE' } },
               UpdateExpression: 'SET visits = if_not_exists(visits, :z) + :one',
               ConditionExpression: 'attribute_exists(PK)',
               ExpressionAttributeValues: { ':z': { N: '0' }, ':one': { N: '1' } } },
        sql: ['CUST#' + c, 'PROFILE'],
      };
    },
    sql: `UPDATE hand SET item = jsonb_set(item, '{visits}',
            jsonb_build_object('N', (coalesce((item #>> '{visits,N}')::numeric, 0) + 1)::text))
           WHERE pk = $1 AND sk = $2`,
    check: { api: () => true, sql: (r) => r.rowCount === 1 },
  },
  delete: {
    title: 'DeleteItem',
    api: 'DeleteItem', cmd: DeleteItemCommand,
    next(ctr) {
      if (ctr.del >= ctr.deletable) return null;   // every deletable item is gone
      const n = ++ctr.del;
      return {
        req: { TableName: TABLE, Key: { PK: { S: 'DEL#' + n }, SK: { S: 'X' } } },
        sql: ['DEL#' + n, 'X'],
      };
    },
    sql: 'DELETE FROM hand WHERE pk = $1 AND sk = $2',
    check: { api: () => true, sql: (r) => r.rowCount === 1 },
  },
};

// ---------------------------------------------------------------- systems

// CPU time (user + system, in seconds) of a process of this machine.
let clockTick = 100;
try { clockTick = Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100; } catch (e) { /* keep 100 */ }
function procCpu(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const a = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(a[11]) + Number(a[12])) / clockTick;
  } catch (e) { return NaN; }
}
function selfCpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }

// A system: C client handles, exec(handle, op, x) for one request, the pids
// of the server processes that work for it, and topUp(n) to load the DEL#
// items up to DEL#n.
function dynaliteSystem(endpoint, serverPid) {
  return {
    name: 'dynalite',
    ctr: counters(),
    clients: [],
    pids: [serverPid],
    async connect() {
      for (let i = 0; i < CLIENTS; i++) {
        this.clients.push(new DynamoDBClient({
          endpoint, region: 'us-east-1', maxAttempts: 1,
          credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
        }));
      }
    },
    async exec(client, op, x) {
      const r = await client.send(new op.cmd(x.req));
      if (!op.check.api(r)) throw new Error(`dynalite ${op.api}: unexpected response ${JSON.stringify(r).slice(0, 200)}`);
    },
    async topUp(n) {
      const items = [];
      for (let i = this.ctr.deletable + 1; i <= n; i++) items.push(delItem(i));
      await batchWriteDynalite(this.clients[0], items);
      this.ctr.deletable = Math.max(this.ctr.deletable, n);
    },
    async close() { for (const c of this.clients) c.destroy(); },
  };
}

function pgSystem(name, kind) {
  return {
    name,
    ctr: counters(),
    clients: [],
    pids: [],
    async connect() {
      for (let i = 0; i < CLIENTS; i++) {
        const c = new pg.Client({ application_name: 'bench-' + name });
        await c.connect();
        this.clients.push(c);
        this.pids.push((await c.query('SELECT pg_backend_pid() AS p')).rows[0].p);
      }
    },
    async exec(client, op, x) {
      if (kind === 'api') {
        // one statement, prepared once per connection (like pgbench -M prepared)
        const r = await client.query({ name: 'st_api', text: 'SELECT st_api($1, $2::jsonb) AS r',
                                       values: [op.api, JSON.stringify(x.req)] });
        if (!op.check.api(r.rows[0].r))
          throw new Error(`st_api ${op.api}: unexpected response ${JSON.stringify(r.rows[0].r).slice(0, 200)}`);
      } else {
        const r = await client.query({ name: 'hand_' + op.key, text: op.sql, values: x.sql });
        if (!op.check.sql(r)) throw new Error(`SQL ${op.key}: unexpected result (${r.rowCount} rows)`);
      }
    },
    async topUp(n) {
      const from = this.ctr.deletable + 1;
      if (n < from) return;
      // stdesign's by st_put from a series (as bench/run.sh), the hand table's by INSERT
      const text = kind === 'api'
        ? `SELECT count(st_put(jsonb_build_object('PK', jsonb_build_object('S', 'DEL#' || i),
             'SK', '{"S": "X"}'::jsonb, 'entity_type', '{"S": "Deletable"}'::jsonb), '${TABLE}', typed => true))
             FROM generate_series($1::int, $2::int) i`
        : `INSERT INTO hand (pk, sk, item)
           SELECT 'DEL#' || i, 'X', jsonb_build_object('PK', jsonb_build_object('S', 'DEL#' || i),
             'SK', '{"S": "X"}'::jsonb, 'entity_type', '{"S": "Deletable"}'::jsonb)
             FROM generate_series($1::int, $2::int) i`;
      await this.clients[0].query(text, [from, n]);
      this.ctr.deletable = n;
    },
    async close() { for (const c of this.clients) await c.end(); },
  };
}

// ---------------------------------------------------------------- closed loop

// C clients, each sending its next request when the previous one answered,
// until the deadline, MAX_OPS requests, or next() running dry. Adds to acc
// (when given) the requests, seconds, latencies and CPU seconds of the client
// process and of the system's server processes.
async function closedLoop(sys, op, seconds, acc) {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  let ops = 0, errors = 0, firstError = null;
  const lat = acc ? acc.lat : null;
  const cpu0 = selfCpu(), srv0 = sys.pids.reduce((s, p) => s + procCpu(p), 0);
  const start = process.hrtime.bigint();
  await Promise.all(sys.clients.map(async (client) => {
    for (let i = 0; i < MAX_OPS; i++) {
      if (process.hrtime.bigint() >= deadline) break;
      const x = op.next(sys.ctr);
      if (x === null) { if (acc) acc.dry = true; break; }
      const t0 = process.hrtime.bigint();
      try {
        await sys.exec(client, op, x);
      } catch (e) {
        errors++;
        if (!firstError) firstError = e;
        if (errors > 100) break;
        continue;
      }
      ops++;
      if (lat) lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }));
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  if (firstError) console.error(`   ${sys.name} ${op.key}: ${errors} errors, first: ${firstError.message}`);
  if (acc) {
    acc.ops += ops;
    acc.errors += errors;
    acc.elapsed += elapsed;
    acc.clientCpu += selfCpu() - cpu0;
    acc.serverCpu += sys.pids.reduce((s, p) => s + procCpu(p), 0) - srv0;
  }
}

function newAcc() { return { ops: 0, errors: 0, elapsed: 0, clientCpu: 0, serverCpu: 0, lat: [], dry: false }; }
function summary(acc) {
  acc.lat.sort((a, b) => a - b);
  const pct = (p) => (acc.lat.length ? acc.lat[Math.min(acc.lat.length - 1, Math.floor(acc.lat.length * p))] : NaN);
  return { rate: acc.ops / acc.elapsed, p50: pct(0.50), p99: pct(0.99), ops: acc.ops, errors: acc.errors,
           dry: acc.dry, clientUs: acc.clientCpu / acc.ops * 1e6, serverUs: acc.serverCpu / acc.ops * 1e6,
           cores: (acc.clientCpu + acc.serverCpu) / acc.elapsed };
}

// ---------------------------------------------------------------- set-up

function startDynalite() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'dynalite_server.js')],
                        { stdio: ['pipe', 'pipe', 'inherit'] });
    let buf = '';
    const t = setTimeout(() => reject(new Error('dynalite did not start within 20 s')), 20000);
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) { clearTimeout(t); resolve({ child, port: JSON.parse(buf.slice(0, nl)).port }); }
    });
    child.on('exit', (code) => { clearTimeout(t); reject(new Error('dynalite exited: ' + code)); });
  });
}

function chunks(a, n) { const out = []; for (let i = 0; i < a.length; i += n) out.push(a.slice(i, i + n)); return out; }

async function batchWriteDynalite(client, items) {
  for (const batch of chunks(items, 25)) {
    let req = { [TABLE]: batch.map((Item) => ({ PutRequest: { Item } })) };
    for (let tries = 0; tries < 10 && req && Object.keys(req).length; tries++) {
      const r = await client.send(new BatchWriteItemCommand({ RequestItems: req }));
      req = r.UnprocessedItems;
    }
  }
}

async function loadDynalite(client, items) {
  await client.send(new CreateTableCommand(createTable));
  for (let i = 0; i < 100; i++) {
    const d = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    if (d.Table.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await batchWriteDynalite(client, items);
}

async function loadStdesign(db, items) {
  await db.query('CREATE EXTENSION IF NOT EXISTS stdesign');
  await db.query('SELECT st_api($1, $2::jsonb)', ['CreateTable', JSON.stringify(createTable)]);
  let how = 'BatchWriteItem through st_api';
  try {
    await db.query('BEGIN');
    for (const batch of chunks(items, 25)) {
      await db.query({ name: 'load_bw', text: 'SELECT st_api($1, $2::jsonb) AS r',
                       values: ['BatchWriteItem', JSON.stringify({ RequestItems: { [TABLE]: batch.map((Item) => ({ PutRequest: { Item } })) } })] });
    }
    await db.query('COMMIT');
  } catch (e) {
    await db.query('ROLLBACK');
    how = `st_put (BatchWriteItem failed: ${e.message.split('\n')[0]})`;
    await db.query(`SELECT count(st_put(i, $2, typed => true)) FROM jsonb_array_elements($1::jsonb) i`,
                   [JSON.stringify(items), TABLE]);
  }
  await db.query(handDDL);
  await db.query(`INSERT INTO hand (pk, sk, item)
                  SELECT i->'PK'->>'S', i->'SK'->>'S', i FROM jsonb_array_elements($1::jsonb) i`,
                 [JSON.stringify(items)]);
  await db.query('VACUUM ANALYZE hand');
  await db.query(`VACUUM ANALYZE stdesign_data."${TABLE}"`);
  await db.query('CHECKPOINT');
  const n = await db.query(`SELECT (SELECT count(*) FROM stdesign_data."${TABLE}") AS st, (SELECT count(*) FROM hand) AS hand`);
  return { how, st: Number(n.rows[0].st), hand: Number(n.rows[0].hand) };
}

// ---------------------------------------------------------------- main

function fmt(n, d = 0) { return Number.isFinite(n) ? n.toFixed(d) : '-'; }
function lat(r) { return `${fmt(r.p50, 2)} / ${fmt(r.p99, 2)}`; }
function printTable(head, rows) {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r) => '| ' + r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ') + ' |';
  console.log(line(head));
  console.log('| ' + w.map((n, i) => (i === 0 ? '-'.repeat(n) : '-'.repeat(n - 1) + ':')).join(' | ') + ' |');
  for (const r of rows) console.log(line(r));
}

async function main() {
  const items = allItems();
  console.log(`stdesign (st_api) vs dynalite vs hand-written SQL: ${items.length} items ` +
    `(${CUSTOMERS} customers x ${ORDERS_PER + 1}), ${CLIENTS} clients, ` +
    `${SECONDS} s per operation and system in ${SLICES} alternating slices (after ${WARMUP} s warm-up)`);
  console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0].model.trim()}), ` +
    `${Math.round(os.totalmem() / 2 ** 30)} GiB; load average ${os.loadavg()[0].toFixed(2)}; ` +
    `node ${process.version}; ${new Date().toISOString().slice(0, 10)}`);
  const admin = new pg.Client({ application_name: 'bench-admin' });
  await admin.connect();
  const v = await admin.query("SELECT current_setting('server_version') AS v, current_setting('synchronous_commit') AS sc, current_setting('shared_buffers') AS sb");
  const dynaliteVersion = require('dynalite/package.json').version;
  const sdkVersion = require('@aws-sdk/client-dynamodb/package.json').version;
  const pgVersion = require('pg/package.json').version;
  console.log(`postgres ${v.rows[0].v.split(' ')[0]} (synchronous_commit=${v.rows[0].sc}, shared_buffers=${v.rows[0].sb}), ` +
    `pg ${pgVersion}; dynalite ${dynaliteVersion} in memory, @aws-sdk/client-dynamodb ${sdkVersion}`);
  if (process.env.STDESIGN_SOURCE) console.log(`stdesign built from ${process.env.STDESIGN_SOURCE}`);

  const { child, port } = await startDynalite();
  const endpoint = `http://127.0.0.1:${port}`;
  const systems = [dynaliteSystem(endpoint, child.pid), pgSystem('stdesign', 'api'), pgSystem('SQL', 'sql')];
  try {
    console.log('\n== load');
    let t = Date.now();
    await systems[0].connect();
    await loadDynalite(systems[0].clients[0], items);
    console.log(`   dynalite: ${items.length} items by BatchWriteItem in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
    const loaded = await loadStdesign(admin, items);
    console.log(`   stdesign: ${loaded.st} items by ${loaded.how}; hand-made table: ${loaded.hand} rows ` +
      `(${((Date.now() - t) / 1000).toFixed(1)} s for both)`);
    await systems[1].connect();
    await systems[2].connect();

    console.log('\n== run (ops/s of each slice)');
    for (const [k, op] of Object.entries(operations)) op.key = k;
    const results = {};
    for (const key of OPS) {
      const op = operations[key];
      if (!op) throw new Error('unknown operation ' + key);
      const acc = Object.fromEntries(systems.map((s) => [s.name, newAcc()]));
      const perSlice = Object.fromEntries(systems.map((s) => [s.name, []]));
      for (const sys of systems) if (WARMUP > 0) {
        if (key === 'delete') await sys.topUp(sys.ctr.del + Math.ceil(WARMUP * (sys.name === 'dynalite' ? DELETE_RATE.dynalite : DELETE_RATE.pg)));
        await closedLoop(sys, op, WARMUP, null);
      }
      for (let slice = 0; slice < SLICES; slice++) {
        if (key === 'delete' || key === 'put') {
          // the items this slice may delete, and the WAL of the load (or of
          // the last slice's writes) out of the way of the measurement
          if (key === 'delete') {
            for (const sys of systems)
              await sys.topUp(sys.ctr.del + Math.ceil(SLICE * (sys.name === 'dynalite' ? DELETE_RATE.dynalite : DELETE_RATE.pg)));
          }
          await admin.query('CHECKPOINT');
        }
        for (const sys of systems) {
          const before = acc[sys.name].ops, el = acc[sys.name].elapsed;
          await closedLoop(sys, op, SLICE, acc[sys.name]);
          perSlice[sys.name].push((acc[sys.name].ops - before) / (acc[sys.name].elapsed - el));
        }
      }
      results[key] = Object.fromEntries(systems.map((s) => [s.name, summary(acc[s.name])]));
      for (const sys of systems) {
        const r = results[key][sys.name];
        console.log(`   ${op.title.padEnd(22)} ${sys.name.padEnd(9)} ${fmt(r.rate).padStart(6)} ops/s  ` +
          `[${perSlice[sys.name].map((x) => fmt(x)).join(' ')}]` +
          `${r.errors ? `  ${r.errors} errors` : ''}${r.dry ? '  (ran out of items to delete)' : ''}`);
      }
    }

    console.log('\nThroughput (ops/s), ratios, latency p50 / p99 (ms); * = target missed ' +
      '(stdesign >= 5x dynalite, >= 0.8x SQL)\n');
    const rows = [];
    for (const key of OPS) {
      const r = results[key], d = r.dynalite.rate, s = r.stdesign.rate, q = r.SQL.rate;
      rows.push([operations[key].title, fmt(d), fmt(s), fmt(q),
                 fmt(s / d, 1) + (s / d >= 5 ? '' : ' *'), fmt(s / q, 2) + (s / q >= 0.8 ? '' : ' *'),
                 lat(r.dynalite), lat(r.stdesign), lat(r.SQL)]);
    }
    printTable(['operation', 'dynalite', 'stdesign', 'SQL', 'st/dyn', 'st/SQL',
                'dynalite p50 / p99', 'stdesign p50 / p99', 'SQL p50 / p99'], rows);

    console.log('\nCPU per operation (microseconds): the Node client process, and the server ' +
      '(dynalite\'s process; the two Postgres backends); cores = CPU busy while measuring\n');
    const crow = [];
    for (const key of OPS) {
      const r = results[key];
      crow.push([operations[key].title, ...systems.flatMap((s) => [fmt(r[s.name].clientUs), fmt(r[s.name].serverUs), fmt(r[s.name].cores, 2)])]);
    }
    printTable(['operation', 'dyn client', 'dyn server', 'cores', 'st client', 'st server', 'cores',
                'SQL client', 'SQL server', 'cores'], crow);
    console.log(`\nload average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} ` +
      '(1, 5, 15 min; this run alone keeps about 1.3-1.6 of the cores busy)');
  } finally {
    await admin.end().catch(() => {});
    for (const sys of systems) await sys.close().catch(() => {});
    child.stdin.end();
    child.kill('SIGTERM');
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
