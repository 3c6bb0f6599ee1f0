#!/usr/bin/python3
"""Driver of bench/http/run.sh (runs inside test/scripts/tmp_cluster.sh).

The data: table Bench, 100,000 items of about 200 bytes (DynamoDB's item
size) in 5,000 partitions of 20: item i is PK "P<i / 20>", SK "S<i % 20>",
v, pad.  Every request draws one item index b uniformly from 0-99,999; an
operation of several items takes b, b + stride, ... (mod 100,000), so that
its keys are distinct: GetItem, PutItem, UpdateItem (ADD c :one) one item;
Query the 20 items of b's partition; BatchGetItem 100 keys (stride 1,000);
TransactWriteItems 4 puts (stride 25,000).  Writes put items of the same
shape back, so the data set keeps its size.  One definition per operation
(OPS) makes all three loads:

- trust: wrk, a Lua script that draws b with math.random per request and
  formats the body;
- with --prepared-trust, trust cycles requests prepared the sigv4 way
  (unsigned), to see what drawing keys in Lua costs the client;
- sigv4: wrk cycling through requests drawn the same way in Python and
  signed just before the slice (SigV4 in Lua per request would cost the
  client more than the server; a signature stays valid 15 minutes), from a
  random starting point per thread;
- ceiling: pgbench -M prepared over TCP, the same number of clients and
  threads, a script whose \\set lines draw b the same way and whose only
  statement is SELECT st_api('<Op>', format(E'<the body>', :p0::text,
  ...)::jsonb): the keys go in as parameters, the statement is parsed once
  and, after Postgres's five custom plans, runs its cached generic plan
  (checked before the run and printed); no per-transaction log: the
  latencies come from a 2% sample (--sampling-rate).

Both loads run in one server, alternating per round (the order rotates);
the best of the rounds counts.  Server CPU per request: utime + stime of the
postmaster's children from /proc before and after each slice (those that
exit during it through the postmaster's cutime + cstime), over the requests
served; "serving" is the share of the processes that did the work (the
HTTP workers, pgbench's backends), the rest is the background processes
(WAL writer, checkpointer, ...).  BENCH_TIMING=1 adds the workers' own
count (stdesign.http_status(), stdesign.http_track_timing).
"""
import datetime
import hashlib
import hmac
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request

PORT = int(sys.argv[1])
SECONDS = int(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
OP_NAMES = os.environ.get("BENCH_OPS", "GetItem,Query,PutItem,UpdateItem,BatchGetItem,TransactWriteItems").split(",")
SYSTEMS = os.environ.get("BENCH_SYSTEMS", "trust,sigv4,ceiling").split(",")
CONNECTIONS = [int(x) for x in os.environ.get("BENCH_CONNECTIONS", "2").split(",")]
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
WORKERS = [int(x) for x in os.environ.get("BENCH_WORKERS", "2").split(",")]
TIMING = os.environ.get("BENCH_TIMING") == "1"
EXISTING = os.environ.get("BENCH_EXISTING") == "1"
PREPARED_TRUST = os.environ.get("BENCH_PREPARED_TRUST") == "1"
MEMORY = int(os.environ.get("BENCH_MEMORY", "0"))
DYNALITE = os.environ.get("BENCH_DYNALITE")
CLUSTER = os.environ.get("BENCH_CLUSTER")
TICK = os.sysconf("SC_CLK_TCK")
N, PER = 100000, 20
PAD = "x" * 180
SAMPLING = 0.02
work = tempfile.mkdtemp()

# Per operation: the offsets of its items from b, the letters of each
# item's values in the body (p: partition, s: sort key, v: a random number),
# the body with a %s per value.
KEY = '{"PK":{"S":"P%s"},"SK":{"S":"S%s"}}'
ITEM = '{"PK":{"S":"P%s"},"SK":{"S":"S%s"},"v":{"N":"%s"},"pad":{"S":"' + PAD + '"}}'
OPS = {
    "GetItem": ([0], "ps", '{"TableName":"Bench","Key":' + KEY + '}'),
    "Query": ([0], "p", '{"TableName":"Bench","KeyConditionExpression":"PK = :p",'
                        '"ExpressionAttributeValues":{":p":{"S":"P%s"}}}'),
    "PutItem": ([0], "psv", '{"TableName":"Bench","Item":' + ITEM + '}'),
    "UpdateItem": ([0], "ps", '{"TableName":"Bench","Key":' + KEY + ',"UpdateExpression":"ADD c :one",'
                              '"ExpressionAttributeValues":{":one":{"N":"1"}}}'),
    "BatchGetItem": (list(range(0, N, 1000)), "ps",
                     '{"RequestItems":{"Bench":{"Keys":[' + ",".join([KEY] * 100) + ']}}}'),
    "TransactWriteItems": (list(range(0, N, 25000)), "psv",
                           '{"TransactItems":[' + ",".join(['{"Put":{"TableName":"Bench","Item":' + ITEM + '}}'] * 4)
                           + ']}'),
}
NAMES = {"trust": "endpoint (trust)", "sigv4": "endpoint (sigv4)", "ceiling": "ceiling (pgbench -M prepared)",
         "dynalite": "dynalite", "queue": "endpoint (trust, no fast path)"}


def psql(q):
    return subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", q], check=True,
                          capture_output=True, text=True).stdout.strip()


def values(op, b, v):
    """The body's values for base item b and random number v, in order."""
    offsets, letters, _ = OPS[op]
    out = []
    for off in offsets:
        i = (b + off) % N
        out += [{"p": i // PER, "s": i % PER, "v": v}[c] for c in letters]
    return out


def body(op, rnd):
    return OPS[op][2] % tuple(values(op, rnd.randrange(N), rnd.randrange(1000000)))


# Under trust the endpoint wants credentials but checks no signature: the
# trust load sends what an SDK sends, with a signature of zeros.
TRUST_AUTH = ("20260101T000000Z", "AWS4-HMAC-SHA256 Credential=AKIDTRUST/20260101/us-east-1/dynamodb/aws4_request, "
              "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" + "0" * 64)


def raw(port, op, body, auth=None):
    """One HTTP request as wrk sends it."""
    h = "POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/x-amz-json-1.0\r\n" \
        "X-Amz-Target: DynamoDB_20120810.%s\r\n" % (port, op)
    if auth:
        h += "X-Amz-Date: %s\r\nAuthorization: %s\r\n" % auth
    return h + "Content-Length: %d\r\n\r\n%s" % (len(body), body)


def sign(port, op, body, key, secret, now, skey):
    h = {"content-type": "application/x-amz-json-1.0", "host": "127.0.0.1:%d" % port,
         "x-amz-date": now, "x-amz-target": "DynamoDB_20120810." + op}
    names = sorted(h)
    creq = "POST\n/\n\n%s\n%s\n%s" % ("".join("%s:%s\n" % (n, h[n]) for n in names), ";".join(names),
                                     hashlib.sha256(body.encode()).hexdigest())
    scope = "%s/us-east-1/dynamodb/aws4_request" % now[:8]
    sts = "AWS4-HMAC-SHA256\n%s\n%s\n%s" % (now, scope, hashlib.sha256(creq.encode()).hexdigest())
    sig = hmac.new(skey, sts.encode(), hashlib.sha256).hexdigest()
    return now, "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        key, scope, ";".join(names), sig)


LUA_TRUST = r"""-- %(op)s with random keys, drawn per request
local N, PER = %(n)d, %(per)d
local offsets = {%(offsets)s}
local tmpl = [==[%(tmpl)s]==]
local head = "%(head)s"
local floor, random, format, unpack = math.floor, math.random, string.format, unpack
local t = {}
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end
function init(args)
  math.randomseed(os.time() * 1000 + (id or 0) * 7919)
  for _ = 1, 10 do random() end
end
function request()
  local b, v = random(0, N - 1), random(0, 999999)
  local n = 0
  for j = 1, #offsets do
    local i = (b + offsets[j]) %% N
%(fill)s
  end
  local body = format(tmpl, unpack(t, 1, n))
  return head .. #body .. "\r\n\r\n" .. body
end
"""

LUA_FILE = r"""-- requests prepared in a file (<length>\n<request>...), cycled from a random start
local reqs, i = {}, 0
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end
-- read when the script loads, before wrk's clock starts
do
  local f = assert(io.open([==[%(path)s]==], "rb"))
  local data = f:read("*a")
  f:close()
  local pos = 1
  while pos <= #data do
    local nl = data:find("\n", pos, true)
    local len = tonumber(data:sub(pos, nl - 1))
    reqs[#reqs + 1] = data:sub(nl + 1, nl + len)
    pos = nl + 1 + len
  end
end
function init(args)
  math.randomseed(os.time() * 1000 + (id or 0) * 7919)
  i = math.random(#reqs)
end
function request()
  i = i %% #reqs + 1
  return reqs[i]
end
"""


def lua_trust(port, op):
    offsets, letters, tmpl = OPS[op]
    fill = "\n".join("    n = n + 1; t[n] = %s" % {"p": "floor(i / PER)", "s": "i % PER", "v": "v"}[c]
                     for c in letters)
    head = raw(port, op, "", TRUST_AUTH).split("Content-Length: ")[0] + "Content-Length: "
    path = os.path.join(work, "%s_trust_%d.lua" % (op, port))
    with open(path, "w") as f:
        f.write(LUA_TRUST % {"op": op, "n": N, "per": PER, "offsets": ", ".join(map(str, offsets)),
                             "tmpl": tmpl.replace("%s", "%d"), "head": head.replace("\r\n", "\\r\\n"),
                             "fill": fill})
    return path


def lua_signed(port, op, key, secret, seed):
    """The sigv4 script: requests signed now, as many as fit in about 16 MB
    (2,000 to 20,000), drawn like the trust script's (key None: unsigned,
    with the trust load's credentials)."""
    rnd = random.Random(seed)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    skey = ("AWS4" + (secret or "")).encode()
    for p in (now[:8], "us-east-1", "dynamodb", "aws4_request"):
        skey = hmac.new(skey, p.encode(), hashlib.sha256).digest()
    count = max(2000, min(20000, 16000000 // (len(body(op, rnd)) + 600)))
    data = os.path.join(work, "%s_signed_%d.req" % (op, port))
    with open(data, "wb") as f:
        for _ in range(count):
            b = body(op, rnd)
            r = raw(port, op, b, sign(port, op, b, key, secret, now, skey) if key else TRUST_AUTH).encode()
            f.write(b"%d\n%s" % (len(r), r))
    path = os.path.join(work, "%s_signed_%d.lua" % (op, port))
    with open(path, "w") as f:
        f.write(LUA_FILE % {"path": data})
    return path


def pgbench_script(op):
    """The ceiling's script and its statement's parameters in order."""
    offsets, letters, tmpl = OPS[op]
    lines = ["\\set b random(0, %d)" % (N - 1)]
    if "v" in letters:
        lines.append("\\set v random(0, 999999)")
    args = []
    for j, off in enumerate(offsets):
        lines.append("\\set i%d :b" % j if off == 0 else "\\set i%d (:b + %d) %% %d" % (j, off, N))
        for c in letters:
            if c == "v":
                args.append("v")
                continue
            if "%s%d" % (c, j) not in args:
                lines.append("\\set %s%d :i%d %s %d" % (c, j, j, "/" if c == "p" else "%", PER))
            args.append("%s%d" % (c, j))
    return "\n".join(lines) + "\n" + statement(op, [":%s::text" % a for a in args]) + ";\n", args


def statement(op, refs):
    """SELECT st_api(op, <the body from the parameters refs>::jsonb).  A
    function takes at most 100 arguments: a body of more values (BatchGetItem's
    200) is the concatenation of formats of 98 values each."""
    tmpl = OPS[op][2]
    parts = tmpl.split("%s")
    chunks = []
    for k in range(0, len(refs), 98):
        text = "".join(parts[n] + "%s" for n in range(k, min(k + 98, len(refs))))
        if k + 98 >= len(refs):
            text += parts[-1]
        # pgbench makes every :name a parameter, inside quotes too: the
        # colons of the body go in as \x3a
        lit = "E'" + text.replace("\\", "\\\\").replace("'", "\\'").replace(":", "\\x3a") + "'"
        chunks.append("format(%s, %s)" % (lit, ", ".join(refs[k:k + 98])))
    return "SELECT st_api('%s', (%s)::jsonb)" % (op, " || ".join(chunks))


def plan_check(op):
    """Executions of the ceiling's statement, prepared as pgbench prepares it,
    that ran a custom plan and the cached generic one (of 10)."""
    args = pgbench_script(op)[1]
    stmt = statement(op, ["$%d::text" % (n + 1) for n in range(len(args))])
    rnd = random.Random(7)
    q = ["PREPARE q AS %s;" % stmt]
    for _ in range(10):
        vals = values(op, rnd.randrange(N), rnd.randrange(1000000))
        q.append("EXECUTE q(%s) \\g /dev/null" % ", ".join("'%d'" % x for x in vals))
    q.append("SELECT custom_plans || ' ' || generic_plans FROM pg_prepared_statements WHERE name = 'q';")
    run = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1"], input="\n".join(q),
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("the ceiling's %s statement: %s" % (op, run.stderr[:1000]))
    out = run.stdout.split()
    return int(out[-2]), int(out[-1])


def stat(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return int(f[1]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14])


def switches(pids):
    """Voluntary context switches of all the threads of pids (a thread that
    waits for another: the hand-offs; the involuntary ones are mostly the
    machine's other load preempting them)."""
    n = 0
    for pid in pids:
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for t in tasks:
            try:
                for line in open("/proc/%d/task/%s/status" % (pid, t)):
                    if line.startswith("voluntary_ctxt_switches:"):
                        n += int(line.split()[-1])
            except OSError:
                continue
    return n


def snapshot(pm):
    """CPU ticks of the postmaster's children by pid, and the postmaster's
    own and its reaped children's."""
    kids = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                ppid, t, _ = stat(int(name))
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pm:
                kids[int(name)] = t
    _, own, reaped = stat(pm)
    return kids, own, reaped


def cpu_delta(s0, s1, serving):
    """(all, serving) CPU ticks between two snapshots; serving: the pids of
    the serving processes, or None for those that came and went (pgbench's
    backends)."""
    k0, own0, reaped0 = s0
    k1, own1, reaped1 = s1
    total = (own1 - own0) + (reaped1 - reaped0) + sum(k1.values()) - sum(k0.values())
    if serving is None:
        # children that ended in the slice (they are in reaped) or began in it
        mine = (reaped1 - reaped0) - sum(t for p, t in k0.items() if p not in k1) + \
            sum(t for p, t in k1.items() if p not in k0)
    else:
        mine = sum(k1.get(p, 0) - k0.get(p, 0) for p in serving)
    return total, mine


def ms(lat):
    """wrk's latency ("812.00us", "1.23ms", "1.01s") in milliseconds."""
    m = re.match(r"([\d.]+)(us|ms|s)$", lat or "")
    if not m:
        return float("nan")
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]


def wrk(port, script, conns, seconds):
    run = subprocess.run(["wrk", "-t%d" % min(THREADS, conns), "-c%d" % conns, "-d%ds" % seconds, "--latency",
                          "-s", script, "http://127.0.0.1:%d/" % port], capture_output=True, text=True)
    if run.returncode != 0 or run.stderr:
        sys.exit("wrk: " + (run.stderr or run.stdout)[:2000])
    out = run.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", out, re.M))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return (rps, total, ms(lat.get("50")), ms(lat.get("99")),
            (int(errors.group(1)) if errors else 0) + (sum(map(int, sock.groups())) if sock else 0))


def pgbench(op, conns, seconds):
    path = os.path.join(work, op + ".sql")
    with open(path, "w") as f:
        f.write(pgbench_script(op)[0])
    prefix = os.path.join(work, "pgb_" + op)
    run = subprocess.run(["pgbench", "-n", "-M", "prepared", "-h", "127.0.0.1", "-c%d" % conns,
                          "-j%d" % min(THREADS, conns), "-T%d" % seconds, "-f", path, "-l",
                          "--sampling-rate=%g" % SAMPLING, "--log-prefix", prefix],
                         capture_output=True, text=True)
    out = run.stdout
    tps = float(re.search(r"tps = ([\d.]+)", out).group(1))
    total = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
    failed = re.search(r"number of failed transactions: (\d+)", out)
    errors = (int(failed.group(1)) if failed else 0) + (1 if run.returncode != 0 else 0)
    if run.returncode != 0:
        print("pgbench %s: %s" % (op, run.stderr.strip()[:500]), file=sys.stderr)
    lats = []
    for name in os.listdir(work):
        if name.startswith("pgb_" + op):
            with open(os.path.join(work, name)) as f:
                lats += [int(line.split()[2]) for line in f]
            os.unlink(os.path.join(work, name))
    lats.sort()
    p = (lambda q: lats[min(int(len(lats) * q), len(lats) - 1)] / 1000.0) if lats else (lambda q: float("nan"))
    return tps, total, p(0.5), p(0.99), errors


def in_worker(op):
    """(requests timed, request CPU us, auth CPU us) of op, summed over the workers."""
    row = psql("SELECT coalesce(sum((by_operation->'%s'->>'timed')::bigint), 0) || ' ' || "
               "coalesce(sum((by_operation->'%s'->>'request_cpu_us')::bigint), 0) || ' ' || "
               "coalesce(sum((by_operation->'%s'->>'auth_cpu_us')::bigint), 0) FROM stdesign.http_status()"
               % (op, op, op))
    return [int(x) for x in row.split()]


def post(port, op, b, auth=None):
    """One request (a check before the load): the parsed answer."""
    h = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op}
    if auth:
        h["X-Amz-Date"], h["Authorization"] = auth
    try:
        with urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:%d/" % port, b.encode(), h),
                                    timeout=30) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        sys.exit("%s on port %d: HTTP %d %s" % (op, port, e.code, e.read()[:500]))


def check(op, answer):
    """Does a read's answer hold what the data set promises?"""
    if op == "GetItem" and "Item" not in answer:
        sys.exit("GetItem found no item: %s" % answer)
    if op == "Query" and answer.get("Count") != PER:
        sys.exit("Query returned %s items" % answer.get("Count"))
    if op == "BatchGetItem" and (len(answer["Responses"]["Bench"]) != 100 or answer.get("UnprocessedKeys")):
        sys.exit("BatchGetItem: %d items, unprocessed %s" % (len(answer["Responses"]["Bench"]),
                                                              answer.get("UnprocessedKeys")))


def load_sql():
    psql("SELECT st_api('CreateTable', '%s')" % json.dumps({
        "TableName": "Bench", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                 {"AttributeName": "SK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}))
    psql("SELECT st_put_all(jsonb_build_object('PK', jsonb_build_object('S', 'P' || i / %d), "
         "'SK', jsonb_build_object('S', 'S' || i %% %d), 'v', jsonb_build_object('N', i::text), "
         "'pad', jsonb_build_object('S', '%s')), 'Bench', true) FROM generate_series(0, %d) AS i"
         % (PER, PER, PAD, N - 1))
    psql("VACUUM ANALYZE")
    psql("CHECKPOINT")


def load_dynalite(port):
    import boto3
    c = boto3.client("dynamodb", endpoint_url="http://127.0.0.1:%d" % port, region_name="us-east-1",
                     aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
    c.create_table(TableName="Bench", AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                                            {"AttributeName": "SK", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
                   BillingMode="PAY_PER_REQUEST")
    for i in range(0, N, 25):
        c.batch_write_item(RequestItems={"Bench": [{"PutRequest": {"Item": {
            "PK": {"S": "P%d" % (k // PER)}, "SK": {"S": "S%d" % (k % PER)}, "v": {"N": str(k)},
            "pad": {"S": PAD}}}} for k in range(i, i + 25)]})


def set_auth(mode):
    """trust, sigv4, or queue: trust with stdesign.http_fast_path off."""
    psql("ALTER SYSTEM SET stdesign.http_auth = '%s'" % ("trust" if mode == "queue" else mode))
    psql("ALTER SYSTEM SET stdesign.http_fast_path = %s" % ("off" if mode == "queue" else "on"))
    psql("SELECT pg_reload_conf()")
    time.sleep(0.5)


def start_workers(count):
    """Restart the server with count HTTP workers; their pids."""
    psql("ALTER SYSTEM SET stdesign.http_workers = %d" % count)
    subprocess.run(["bash", CLUSTER, "ctl", "restart"], check=True)
    for _ in range(100):
        pids = [int(x) for x in psql("SELECT pid FROM stdesign.http_status() WHERE pid IS NOT NULL").split()]
        if len(pids) == count:
            return pids
        time.sleep(0.2)
    sys.exit("the server did not start %d HTTP workers" % count)


def worker_memory(pids):
    """Each worker's private memory in kB: its anonymous resident pages
    (/proc/PID/status RssAnon: palloc's blocks, malloc's, the connections'
    buffers; not shared_buffers, which is shared memory)."""
    out = {}
    for pid in pids:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("RssAnon:"):
                out[pid] = int(line.split()[1])
    return out


def memory_run(workers, total):
    """The six operations in turn (trust, 2 connections) until the workers
    have served total requests; their memory after the first tenth (the
    warm-up: caches, connections' buffers) and at the end."""
    served, warm, samples = 0, None, []
    slices = 0
    while served < total:
        for op in OP_NAMES:
            _, n, _, _, errs = wrk(PORT, lua_trust(PORT, op), 2, SECONDS)
            if errs:
                sys.exit("memory run: %d errors in %s" % (errs, op))
            served += n
            slices += 1
        mem = worker_memory(workers)
        samples.append((served, sum(mem.values())))
        print("after %9d requests: workers' RssAnon %s kB" % (served, " + ".join(str(mem[p]) for p in workers)))
        if warm is None and served >= total // 10:
            warm = samples[-1]
    end = samples[-1]
    print()
    print("| requests | workers' RssAnon after the warm-up (kB) | at the end (kB) | growth |")
    print("| ---: | ---: | ---: | ---: |")
    print("| %d (warm-up at %d) | %d | %d | %+.1f%% |" % (end[0], warm[0], warm[1], end[1],
                                                      100.0 * (end[1] - warm[1]) / warm[1]))


def fmt_ms(x):
    return "%.2f" % x if x == x else "?"


def main():
    print("stdesign HTTP endpoint against its ceiling: %d items in %d partitions of %d, %d s slices, "
          "best of %d rounds, threads min(%d, connections)" % (N, N // PER, PER, SECONDS, ROUNDS, THREADS))
    print("machine: %d cores, load average %s; %s; %s" % (
        os.cpu_count(), open("/proc/loadavg").read().split()[0],
        psql("SHOW server_version"), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")))
    if EXISTING:
        psql("CREATE EXTENSION IF NOT EXISTS stdesign")
        psql("ALTER SYSTEM SET stdesign.http_track_timing = %s" % ("on" if TIMING else "off"))
        if psql("SELECT count(*) FROM stdesign.tables WHERE table_name = 'Bench'") != "0":
            psql("SELECT st_api('DeleteTable', '{\"TableName\": \"Bench\"}')")
    else:
        psql("CREATE EXTENSION stdesign")
    # trust runs as the role the sigv4 key is made for (this superuser), so
    # that the two modes differ by their authentication only
    me = psql("SELECT current_user")
    psql("ALTER SYSTEM SET stdesign.http_trust_role = '%s'" % me.replace("'", "''"))
    psql("ALTER SYSTEM SET stdesign.http_trust_allow_superuser = on")
    psql("ALTER SYSTEM SET stdesign.http_auth = 'trust'")
    psql("SELECT pg_reload_conf()")
    key, secret = psql("SELECT access_key_id || ' ' || secret_access_key FROM "
                       "st_create_access_key(current_user::regrole)").split()
    t0 = time.time()
    load_sql()
    # DynamoDB's item size: its names' and values' lengths
    size = sum(len(n) + len(v) for n, v in (("PK", "P2500"), ("SK", "S10"), ("v", "50000"), ("pad", PAD)))
    print("loaded in %.0f s; an item is about %d bytes" % (time.time() - t0, size))
    pm = stat(int(psql("SELECT pg_backend_pid()")))[0]
    dyn = None
    if "dynalite" in SYSTEMS:
        dyn = subprocess.Popen(["node", DYNALITE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        dport = json.loads(dyn.stdout.readline())["port"]
        load_dynalite(dport)
    if "ceiling" in SYSTEMS:
        for op in OP_NAMES:
            custom, generic = plan_check(op)
            print("ceiling's %s statement prepared: of 10 executions %d with a custom plan, %d with the cached "
                  "generic plan" % (op, custom, generic))
    if MEMORY:
        workers = [int(x) for x in psql("SELECT pid FROM stdesign.http_status() WHERE pid IS NOT NULL").split()]
        memory_run(workers, MEMORY)
        return
    results = {}    # (workers, conns, op, system) -> list of slices
    inside = {}
    mode = "trust"
    for nworkers in WORKERS:
        workers = [int(x) for x in psql("SELECT pid FROM stdesign.http_status() WHERE pid IS NOT NULL").split()]
        if not EXISTING and len(workers) != nworkers:
            workers = start_workers(nworkers)
            mode = psql("SHOW stdesign.http_auth")
            pm = stat(int(psql("SELECT pg_backend_pid()")))[0]
        nworkers = len(workers)
        for conns in CONNECTIONS:
            for op in OP_NAMES:
                rnd = random.Random(1)
                for s in ("trust", "sigv4"):
                    if s in SYSTEMS:
                        if s != mode:
                            set_auth(s)
                            mode = s
                        b = body(op, rnd)
                        if s == "sigv4":
                            now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
                            skey = ("AWS4" + secret).encode()
                            for p in (now[:8], "us-east-1", "dynamodb", "aws4_request"):
                                skey = hmac.new(skey, p.encode(), hashlib.sha256).digest()
                            check(op, post(PORT, op, b, sign(PORT, op, b, key, secret, now, skey)))
                        else:
                            check(op, post(PORT, op, b, TRUST_AUTH))
                if "trust" in SYSTEMS:
                    # a second of the load first: caches, connections' memory
                    if mode != "trust":
                        set_auth("trust")
                        mode = "trust"
                    wrk(PORT, lua_trust(PORT, op), conns, 1)
                for r in range(ROUNDS):
                    order = SYSTEMS[r % len(SYSTEMS):] + SYSTEMS[:r % len(SYSTEMS)]
                    for system in order:
                        if system in ("trust", "sigv4", "queue") and system != mode:
                            set_auth(system)
                            mode = system
                        if system == "trust" and PREPARED_TRUST:
                            script = lua_signed(PORT, op, None, None, 1000 * r + 1)
                        elif system in ("trust", "queue"):
                            script = lua_trust(PORT, op)
                        elif system == "sigv4":
                            script = lua_signed(PORT, op, key, secret, 1000 * r + 1)
                        elif system == "dynalite":
                            script = lua_signed(dport, op, "AKIDEXAMPLE", "secret", 1000 * r + 1)
                        w0 = in_worker(op) if TIMING and system in ("trust", "sigv4", "queue") else None
                        time.sleep(0.3)
                        if system == "dynalite":
                            c0 = sum(stat(dyn.pid)[1:2])
                            rps, total, p50, p99, errs = wrk(dport, script, conns, SECONDS)
                            c = sum(stat(dyn.pid)[1:2])
                            all_cpu = mine = c - c0
                            client = float("nan")
                            xs = float("nan")
                        else:
                            u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                            x0 = switches(workers) if system != "ceiling" else 0
                            s0 = snapshot(pm)
                            if system == "ceiling":
                                rps, total, p50, p99, errs = pgbench(op, conns, SECONDS)
                                time.sleep(0.3)    # its backends end
                            else:
                                rps, total, p50, p99, errs = wrk(PORT, script, conns, SECONDS)
                            all_cpu, mine = cpu_delta(s0, snapshot(pm), None if system == "ceiling" else workers)
                            xs = (switches(workers) - x0) / max(total, 1) if system != "ceiling" else float("nan")
                            u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                            client = (u1.ru_utime + u1.ru_stime - u0.ru_utime - u0.ru_stime) * 1e6 / max(total, 1)
                        us = 1e6 / TICK / max(total, 1)
                        results.setdefault((nworkers, conns, op, system), []).append(
                            (rps, p50, p99, all_cpu * us, mine * us, errs, client, xs))
                        if w0 is not None:
                            d = [b - a for a, b in zip(w0, in_worker(op))]
                            acc = inside.setdefault((nworkers, conns, op, system), [0, 0, 0])
                            for i in range(3):
                                acc[i] += d[i]
    if dyn is not None:
        dyn.stdin.close()
        dyn.wait()
    if EXISTING:
        for s in ("http_auth", "http_trust_role", "http_trust_allow_superuser", "http_track_timing", "http_fast_path"):
            psql("ALTER SYSTEM RESET stdesign.%s" % s)
        psql("SELECT pg_reload_conf()")
    print("load average at the end: %s" % open("/proc/loadavg").read().split()[0])
    for nworkers in sorted({k[0] for k in results}):
        for conns in CONNECTIONS:
            print()
            print("%d HTTP workers, %d connections (best of %d rounds; server CPU: all the postmaster's children, "
                  "and the serving processes')" % (nworkers, conns, ROUNDS))
            print()
            print("| operation | system | req/s | rounds' req/s | p50 ms | p99 ms | server CPU us/req "
                  "| serving us/req | in-worker us/req | workers' voluntary context switches/req | client CPU us/req "
                  "| / ceiling | errors |")
            print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
            for op in OP_NAMES:
                ceiling = results.get((nworkers, conns, op, "ceiling"))
                top = max(ceiling)[0] if ceiling else float("nan")
                for system in ("trust", "queue", "sigv4", "ceiling", "dynalite"):
                    rs = results.get((nworkers, conns, op, system))
                    if not rs:
                        continue
                    best = max(rs)
                    w = inside.get((nworkers, conns, op, system))
                    print("| %s | %s | %.0f | %s | %s | %s | %.0f | %.0f | %s | %s | %.0f | %.2f | %d |" % (
                        op, NAMES[system], best[0], " / ".join("%.0f" % x[0] for x in rs), fmt_ms(best[1]),
                        fmt_ms(best[2]), best[3], best[4], "%.1f" % (w[1] / w[0]) if w and w[0] else "-",
                        "-" if best[7] != best[7] else "%.2f" % best[7],
                        best[6], best[0] / top, sum(x[5] for x in rs)))
    print()
    # the CPU ratio: the ceiling's server CPU per request over the
    # endpoint's (best rounds), what the throughput ratio would be with the
    # server's cores all busy; other work on the machine moves it less
    print("Endpoint over ceiling: best req/s over best req/s; in brackets the ceiling's server CPU per "
          "request over the endpoint's:")
    print()
    print("| workers | connections | operation | trust | sigv4 |")
    print("| ---: | ---: | --- | ---: | ---: |")
    for nworkers in sorted({k[0] for k in results}):
        for conns in CONNECTIONS:
            for op in OP_NAMES:
                ceiling = results.get((nworkers, conns, op, "ceiling"))
                top = max(ceiling)[0] if ceiling else float("nan")
                cells = []
                for system in ("trust", "sigv4"):
                    rs = results.get((nworkers, conns, op, system))
                    cells.append("%.2f (%.2f)" % (max(rs)[0] / top, max(ceiling)[3] / max(rs)[3])
                                 if rs and ceiling else "-")
                print("| %d | %d | %s | %s | %s |" % (nworkers, conns, op, cells[0], cells[1]))
    if any((k[:3] + ("sigv4",)) in inside and (k[:3] + ("trust",)) in inside for k in inside):
        print()
        # SigV4's cost over trust: its authentication less trust's (which
        # looks at the Authorization header too), over trust's request
        print("| workers | connections | operation | in-worker CPU us/req (trust) | (sigv4) | auth us/req (trust) "
              "| (sigv4) | sigv4's auth share of its request | SigV4's cost over trust "
              "| whole request, sigv4 over trust |")
        print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for k in sorted({k[:3] for k in inside}):
            t = inside.get(k + ("trust",))
            s = inside.get(k + ("sigv4",))
            if t and s and t[0] and s[0]:
                t = (t[1] / t[0], t[2] / t[0])
                s = (s[1] / s[0], s[2] / s[0])
                print("| %d | %d | %s | %.1f | %.1f | %.2f | %.1f | %.1f%% | %+.1f%% | %+.1f%% |" % (
                    k[0], k[1], k[2], t[0], s[0], t[1], s[1], 100.0 * s[1] / s[0], 100.0 * (s[1] - t[1]) / t[0],
                    100.0 * (s[0] - t[0]) / t[0]))


main()
