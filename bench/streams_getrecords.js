'use strict';
// Client of bench/streams_getrecords.sh: DynamoDB Streams' GetRecords
// through stdesign's HTTP endpoint and through DynamoDB Local, the same
// clients for both.
//
//   node streams_getrecords.js STDESIGN_URL LOCAL_URL CHANGES ROUNDS [C_CLIENT]
//
// On each system: a table StreamBench (PK, SK strings) with a
// NEW_AND_OLD_IMAGES stream; CHANGES / 2 items of about 200 bytes put with
// BatchWriteItem, then put again with another value (so CHANGES changes,
// half INSERT, half MODIFY with both images).  Then ROUNDS rounds, the two
// systems alternating (the first one changes each round), each draining
// its whole stream with each client: DescribeStream (every page of
// shards), then per shard GetShardIterator TRIM_HORIZON and GetRecords
// (Limit 1000) until the shard has no next iterator or, open, answers no
// records.  The clients: the SDK's DynamoDBStreamsClient (what an
// application sees, its parsing of 1,000 records included), and "raw", the
// same requests over fetch with the answers taken by JSON.parse (what the
// servers give, less of the client's work), and "unparsed", raw's
// requests with GetRecords' answers read as text and not parsed (its
// records' event names and its next iterator found by regular
// expressions), and, given the program C_CLIENT (streams_getrecords_client.c,
// which the script compiles), "C": the same drain by that program over one
// keep-alive connection, searching the answers' text without parsing them
// as JSON (the closest to the servers' own time: the Node clients' own
// work per answer bounds their rates; its time is the program's own, its
// start not counted).  Prints records/s of each
// round, the best of each client and system, the ratios, and the records
// each drained by event name (each must be exactly the changes written).

const path = require('path');
const { execFileSync } = require('child_process');
const { createRequire } = require('module');
// the SDK's notice that its releases of 2027 will need a newer Node than 20
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const req = createRequire(path.join(__dirname, '..', 'test', 'http', 'package.json'));
const {
  DynamoDBClient, CreateTableCommand, DescribeTableCommand, BatchWriteItemCommand,
} = req('@aws-sdk/client-dynamodb');
const {
  DynamoDBStreamsClient, DescribeStreamCommand, GetShardIteratorCommand, GetRecordsCommand,
} = req('@aws-sdk/client-dynamodb-streams');

const [stdesignUrl, localUrl] = process.argv.slice(2, 4);
const CHANGES = parseInt(process.argv[4], 10);
const ROUNDS = parseInt(process.argv[5], 10);
const C_CLIENT = process.argv[6];
if (!stdesignUrl || !localUrl || !(CHANGES >= 2) || !(ROUNDS >= 1)) {
  console.error('usage: node streams_getrecords.js STDESIGN_URL LOCAL_URL CHANGES ROUNDS');
  process.exit(2);
}
const TABLE = 'StreamBench';
const ITEMS = Math.floor(CHANGES / 2);
const PAD = 'x'.repeat(160);
const LOAD_CONCURRENCY = 4;
// each round drains each stream with each client
const CLIENTS = ['AWS SDK', 'raw', 'unparsed', ...(C_CLIENT ? ['C'] : [])];

function clients(endpoint) {
  const conf = {
    endpoint, region: 'us-east-1', maxAttempts: 3,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'secret' },
  };
  return { db: new DynamoDBClient(conf), streams: new DynamoDBStreamsClient(conf) };
}

const systems = [
  { name: 'stdesign', url: stdesignUrl, ...clients(stdesignUrl) },
  { name: 'DynamoDB Local', url: localUrl, ...clients(localUrl) },
];

function item(i, pass) {
  return {
    PK: { S: 'P' + Math.floor(i / 20) }, SK: { S: 'S' + (i % 20) },
    v: { N: String(pass * 1000000 + i) }, pad: { S: PAD },
  };
}

async function createTable(sys) {
  await sys.db.send(new CreateTableCommand({
    TableName: TABLE, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  }));
  for (let i = 0; i < 600; i++) {
    const t = (await sys.db.send(new DescribeTableCommand({ TableName: TABLE }))).Table;
    if (t.TableStatus === 'ACTIVE' && t.LatestStreamArn) {
      sys.arn = t.LatestStreamArn;
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(sys.name + ': table not active');
}

// Every item of one pass, 25 a BatchWriteItem, LOAD_CONCURRENCY in flight;
// unprocessed items are sent again.
async function loadPass(sys, pass) {
  let next = 0;
  async function worker() {
    for (;;) {
      const from = next;
      next += 25;
      if (from >= ITEMS) return;
      let reqs = [];
      for (let i = from; i < Math.min(from + 25, ITEMS); i++) reqs.push({ PutRequest: { Item: item(i, pass) } });
      while (reqs.length) {
        const out = await sys.db.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: reqs } }));
        reqs = (out.UnprocessedItems && out.UnprocessedItems[TABLE]) || [];
      }
    }
  }
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
}

// The raw client: the same requests as JSON over fetch (keep-alive), the
// answers taken by JSON.parse alone.  Both servers want credentials but
// check no signature here (stdesign under trust, DynamoDB Local always):
// the header is what an SDK sends, with a signature of zeros.
const AUTH = 'AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/dynamodb/aws4_request, ' +
  'SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=' + '0'.repeat(64);
function rawClient(url) {
  return {
    async send(op, body) {
      const r = await fetch(url + '/', {
        method: 'POST', body: JSON.stringify(body),
        headers: {
          'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDBStreams_20120810.' + op,
          'X-Amz-Date': '20260101T000000Z', Authorization: AUTH,
        },
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(op + ': ' + r.status + ' ' + text.slice(0, 300));
      return JSON.parse(text);
    },
  };
}

// The raw client, GetRecords' answers not parsed: their event names and
// next iterator found in the text (both servers print JSON strings without
// escapes for these).
const EVENT_NAME = /"eventName" ?: ?"([A-Z]+)"/g;
const NEXT_ITERATOR = /"NextShardIterator" ?: ?"([^"]+)"/;
function unparsedClient(url) {
  const raw = rawClient(url);
  return {
    async send(op, body) {
      if (op !== 'GetRecords') return raw.send(op, body);
      const r = await fetch(url + '/', {
        method: 'POST', body: JSON.stringify(body),
        headers: {
          'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDBStreams_20120810.' + op,
          'X-Amz-Date': '20260101T000000Z', Authorization: AUTH,
        },
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(op + ': ' + r.status + ' ' + text.slice(0, 300));
      const records = [];
      for (const m of text.matchAll(EVENT_NAME)) records.push({ eventName: m[1] });
      const next = NEXT_ITERATOR.exec(text);
      return { Records: records, NextShardIterator: next ? next[1] : undefined };
    },
  };
}

// The SDK's commands, by operation name.
const COMMANDS = {
  DescribeStream: DescribeStreamCommand, GetShardIterator: GetShardIteratorCommand, GetRecords: GetRecordsCommand,
};
function sdkClient(streams) {
  return { send: (op, body) => streams.send(new COMMANDS[op](body)) };
}

// Drains the whole stream from its trim horizon: records by event name.
async function drain(sys, client) {
  const counts = { INSERT: 0, MODIFY: 0, REMOVE: 0 };
  const shards = [];
  let start;
  do {
    const d = (await client.send('DescribeStream', {
      StreamArn: sys.arn, ExclusiveStartShardId: start,
    })).StreamDescription;
    for (const s of d.Shards) shards.push(s.ShardId);
    start = d.LastEvaluatedShardId;
  } while (start);
  let calls = 0;
  for (const shard of shards) {
    let it = (await client.send('GetShardIterator', {
      StreamArn: sys.arn, ShardId: shard, ShardIteratorType: 'TRIM_HORIZON',
    })).ShardIterator;
    while (it) {
      const out = await client.send('GetRecords', { ShardIterator: it, Limit: 1000 });
      calls++;
      for (const r of out.Records) counts[r.eventName]++;
      if (out.Records.length === 0) break;
      it = out.NextShardIterator;
    }
  }
  return { counts, shards: shards.length, calls };
}

// The C client's drain: its records by event name and its own time.
function drainC(sys) {
  const u = new URL(sys.url);
  const out = JSON.parse(execFileSync(C_CLIENT, [u.hostname, u.port, sys.arn], { encoding: 'utf8' }));
  return {
    counts: { INSERT: out.INSERT, MODIFY: out.MODIFY, REMOVE: out.REMOVE },
    shards: out.shards, calls: out.calls, seconds: out.seconds,
  };
}

function fmt(n) {
  return Math.round(n).toLocaleString('en-US');
}

async function main() {
  console.log(`changes: ${fmt(CHANGES)} (${fmt(ITEMS)} items put, then put again), GetRecords Limit 1000, ` +
    `best of ${ROUNDS} rounds, systems alternating`);
  for (const sys of systems) {
    await createTable(sys);
    const t0 = process.hrtime.bigint();
    await loadPass(sys, 1);
    await loadPass(sys, 2);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`load ${sys.name}: ${fmt(2 * ITEMS)} changes by BatchWriteItem in ${s.toFixed(1)} s ` +
      `(${fmt(2 * ITEMS / s)} items/s)`);
  }
  const best = {};
  const drained = {};
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? systems : [...systems].reverse();
    for (const kind of CLIENTS) {
      for (const sys of order) {
        let r;
        let s;
        if (kind === 'C') {
          r = drainC(sys);
          s = r.seconds;
        } else {
          const client = kind === 'AWS SDK' ? sdkClient(sys.streams) :
            kind === 'raw' ? rawClient(sys.url) : unparsedClient(sys.url);
          const t0 = process.hrtime.bigint();
          r = await drain(sys, client);
          s = Number(process.hrtime.bigint() - t0) / 1e9;
        }
        const total = r.counts.INSERT + r.counts.MODIFY + r.counts.REMOVE;
        const rate = total / s;
        console.log(`round ${round + 1} ${kind} ${sys.name}: ${fmt(total)} records (${r.shards} shard(s), ` +
          `${r.calls} GetRecords) in ${s.toFixed(2)} s: ${fmt(rate)} records/s`);
        const key = kind + ' ' + sys.name;
        best[key] = Math.max(best[key] || 0, rate);
        drained[key] = r.counts;
      }
    }
  }
  let ok = true;
  console.log('');
  for (const kind of CLIENTS) {
    for (const sys of systems) {
      const key = kind + ' ' + sys.name;
      const c = drained[key];
      const exact = c.INSERT === ITEMS && c.MODIFY === ITEMS && c.REMOVE === 0;
      ok = ok && exact;
      console.log(`${kind}, ${sys.name}: best ${fmt(best[key])} records/s; drained ${fmt(c.INSERT + c.MODIFY + c.REMOVE)} ` +
        `(INSERT ${fmt(c.INSERT)}, MODIFY ${fmt(c.MODIFY)}, REMOVE ${fmt(c.REMOVE)}): ` +
        (exact ? 'exactly the changes written' : `NOT the ${fmt(2 * ITEMS)} changes written`));
    }
    console.log(`${kind}: ratio stdesign / DynamoDB Local ` +
      `${(best[kind + ' stdesign'] / best[kind + ' DynamoDB Local']).toFixed(2)}x (target 5x)`);
  }
  if (!ok) process.exit(1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
