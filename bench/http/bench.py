#!/usr/bin/python3
"""Driver of bench/http/run.sh (runs inside test/scripts/tmp_cluster.sh).

The same data in stdesign and dynalite: 10,000 items "K#<i>"/"S" for
GetItem, PutItem and UpdateItem, and one partition "Q" of 20 items for
Query.  Requests are prepared (signed in advance, valid 15 minutes) and sent
by wrk from a Lua script cycling through them; pgbench runs the same bodies
through st_api.  Server CPU per request: CPU time of the serving processes
(HTTP workers, pgbench's backends, dynalite's node) over the run, from
/proc/<pid>/schedstat (nanoseconds).  BENCH_ROUNDS > 1 runs trust and sigv4
that many times each, alternating, and sums them (so that a change of the
machine's load during the run weighs on both alike).  BENCH_TIMING=1 turns
stdesign.http_track_timing on and adds what the workers count themselves,
from stdesign.http_status(): their thread CPU time per request and its
authentication's (SigV4's share of a request, unaffected by other work on
the machine).
"""
import datetime
import hashlib
import hmac
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

import boto3
import botocore.config

PORT = int(sys.argv[1])
SECONDS = int(sys.argv[2])
DYNALITE = sys.argv[3]
N = 10000
TICK = os.sysconf("SC_CLK_TCK")
work = tempfile.mkdtemp()


def psql(q):
    return subprocess.run(["psql", "-X", "-At", "-c", q], check=True, capture_output=True, text=True).stdout.strip()


def requests(op):
    """(op, body) pairs, the same for every system."""
    rnd = random.Random(1)
    out = []
    for i in range(2000):
        k = rnd.randrange(N)
        if op == "GetItem":
            b = {"TableName": "Bench", "Key": {"PK": {"S": "K#%d" % k}, "SK": {"S": "S"}}}
        elif op == "Query":
            b = {"TableName": "Bench", "KeyConditionExpression": "PK = :q",
                 "ExpressionAttributeValues": {":q": {"S": "Q"}}}
        elif op == "PutItem":
            b = {"TableName": "Bench", "Item": {"PK": {"S": "K#%d" % k}, "SK": {"S": "S"},
                                                "v": {"N": str(i)}, "pad": {"S": "x" * 100}}}
        else:
            b = {"TableName": "Bench", "Key": {"PK": {"S": "K#%d" % k}, "SK": {"S": "S"}},
                 "UpdateExpression": "ADD c :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}
        out.append(json.dumps(b, separators=(",", ":")))
    return out


def sign(port, target, body, key, secret):
    now = datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")
    h = {"content-type": "application/x-amz-json-1.0", "host": "127.0.0.1:%d" % port,
         "x-amz-date": now, "x-amz-target": "DynamoDB_20120810." + target}
    names = sorted(h)
    creq = "POST\n/\n\n%s\n%s\n%s" % ("".join("%s:%s\n" % (n, h[n]) for n in names), ";".join(names),
                                     hashlib.sha256(body.encode()).hexdigest())
    scope = "%s/us-east-1/dynamodb/aws4_request" % now[:8]
    sts = "AWS4-HMAC-SHA256\n%s\n%s\n%s" % (now, scope, hashlib.sha256(creq.encode()).hexdigest())
    k = ("AWS4" + secret).encode()
    for p in (now[:8], "us-east-1", "dynamodb", "aws4_request"):
        k = hmac.new(k, p.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    h["authorization"] = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        key, scope, ";".join(names), sig)
    h["host"] = "127.0.0.1:%d" % port   # wrk.format adds none when the script is loaded
    return h


def lua(port, op, key, secret):
    path = os.path.join(work, "%s_%d.lua" % (op, port))
    with open(path, "w") as f:
        f.write("local reqs = {\n")
        for body in requests(op):
            h = sign(port, op, body, key, secret)
            hs = ", ".join('["%s"] = %s' % (k, json.dumps(v)) for k, v in h.items())
            f.write("  wrk.format('POST', '/', {%s}, %s),\n" % (hs, json.dumps(body)))
        f.write("}\nlocal i = 0\nrequest = function()\n  i = i % #reqs + 1\n  return reqs[i]\nend\n"
                "response = function(status, headers, body)\n"
                "  if status ~= 200 then io.stderr:write('status ' .. status .. ' ' .. body .. '\\n') end\nend\n")
    return path


def ticks(pids):
    """CPU time of the processes, all their threads (an HTTP worker's I/O
    thread too), in nanoseconds."""
    t = 0
    for p in pids:
        try:
            t += sum(int(open("/proc/%d/task/%s/schedstat" % (p, task)).read().split()[0])
                     for task in os.listdir("/proc/%d/task" % p))
        except (OSError, IndexError, ValueError):
            try:
                f = open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
                t += (int(f[11]) + int(f[12])) * 1000000000 // TICK
            except (OSError, IndexError):
                pass
    return t


def in_worker(op):
    """(requests timed, request CPU us, auth CPU us) of op, summed over the workers."""
    row = psql("SELECT coalesce(sum((by_operation->'%s'->>'timed')::bigint), 0) || ' ' || "
               "coalesce(sum((by_operation->'%s'->>'request_cpu_us')::bigint), 0) || ' ' || "
               "coalesce(sum((by_operation->'%s'->>'auth_cpu_us')::bigint), 0) FROM stdesign.http_status()"
               % (op, op, op))
    return [int(x) for x in row.split()]


def ms(lat):
    """wrk's latency ("812.00us", "1.23ms", "1.01s") in milliseconds."""
    m = re.match(r"([\d.]+)(us|ms|s)$", lat or "")
    if not m:
        return float("nan")
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]


class Sampler(threading.Thread):
    """Highest CPU ticks seen per process of a set (for processes that exit)."""

    def __init__(self, find):
        super().__init__(daemon=True)
        self.find, self.seen, self.stop = find, {}, False

    def run(self):
        while not self.stop:
            for p in self.find():
                self.seen[p] = max(self.seen.get(p, 0), ticks([p]))
            time.sleep(0.2)


def wrk(port, script):
    run = subprocess.run(["wrk", "-t1", "-c2", "-d%ds" % SECONDS, "--latency", "-s", script,
                          "http://127.0.0.1:%d/" % port], capture_output=True, text=True)
    if run.stderr:
        sys.exit("wrk: " + run.stderr[:2000])
    out = run.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", out, re.M))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, total, lat.get("50"), lat.get("99"), int(errors.group(1)) if errors else 0


def pgbench(op):
    path = os.path.join(work, op + ".sql")
    bodies = requests(op)
    with open(path, "w") as f:
        f.write("\\set i random(0, %d)\n" % (len(bodies) - 1))
        f.write("SELECT st_api('%s', (SELECT b FROM bench_bodies WHERE op = '%s' AND i = :i));\n" % (op, op))
    psql("CREATE TABLE IF NOT EXISTS bench_bodies (op text, i int, b jsonb, PRIMARY KEY (op, i))")
    with open(os.path.join(work, op + ".copy"), "w") as f:
        for i, b in enumerate(bodies):
            f.write("%s\t%d\t%s\n" % (op, i, b.replace("\\", "\\\\")))
    subprocess.run(["psql", "-X", "-q", "-c", "\\copy bench_bodies FROM '%s'" % os.path.join(work, op + ".copy")],
                   check=True)
    s = Sampler(lambda: [int(x) for x in psql(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench'").split()])
    s.start()
    log_prefix = os.path.join(work, "pgb_" + op)
    out = subprocess.run(["pgbench", "-n", "-c2", "-j1", "-T%d" % SECONDS, "-f", path, "-l",
                          "--log-prefix", log_prefix], capture_output=True, text=True,
                         env=dict(os.environ, PGAPPNAME="pgbench")).stdout
    s.stop = True
    s.join()
    tps = float(re.search(r"tps = ([\d.]+)", out).group(1))
    total = int(re.search(r"number of transactions actually processed: (\d+)", out).group(1))
    lats = []
    for name in os.listdir(work):
        if name.startswith("pgb_" + op):
            with open(os.path.join(work, name)) as f:
                lats += [int(line.split()[2]) for line in f]
            os.unlink(os.path.join(work, name))
    lats.sort()
    p = (lambda q: "%.2fms" % (lats[int(len(lats) * q)] / 1000.0)) if lats else (lambda q: "?")
    psql("DELETE FROM bench_bodies")
    return tps, total, p(0.5), p(0.99), sum(s.seen.values())


def load(port, key, secret):
    c = boto3.client("dynamodb", endpoint_url="http://127.0.0.1:%d" % port, region_name="us-east-1",
                     aws_access_key_id=key, aws_secret_access_key=secret,
                     config=botocore.config.Config(retries={"max_attempts": 3}))
    c.create_table(TableName="Bench", AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                                            {"AttributeName": "SK", "AttributeType": "S"}],
                   KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
                   BillingMode="PAY_PER_REQUEST")
    items = [{"PK": {"S": "K#%d" % i}, "SK": {"S": "S"}, "v": {"N": str(i)}, "pad": {"S": "x" * 100}}
             for i in range(N)]
    items += [{"PK": {"S": "Q"}, "SK": {"S": "%02d" % i}, "v": {"N": str(i)}, "pad": {"S": "x" * 100}}
              for i in range(20)]
    for i in range(0, len(items), 25):
        c.batch_write_item(RequestItems={"Bench": [{"PutRequest": {"Item": it}} for it in items[i:i + 25]]})


def main():
    existing = os.environ.get("BENCH_EXISTING") == "1"
    ops = os.environ.get("BENCH_OPS", "GetItem,Query,PutItem,UpdateItem").split(",")
    systems = os.environ.get("BENCH_SYSTEMS", "trust,sigv4,pgbench,dynalite").split(",")
    rounds = int(os.environ.get("BENCH_ROUNDS", "1"))
    timing = os.environ.get("BENCH_TIMING") == "1"
    if existing:
        psql("CREATE EXTENSION IF NOT EXISTS stdesign")
        psql("ALTER SYSTEM SET stdesign.http_auth = 'trust'")
        psql("ALTER SYSTEM SET stdesign.http_track_timing = %s" % ("on" if timing else "off"))
        psql("SELECT pg_reload_conf()")
        time.sleep(0.5)
        if psql("SELECT count(*) FROM stdesign.tables WHERE table_name = 'Bench'") != "0":
            psql("SELECT st_api('DeleteTable', '{\"TableName\": \"Bench\"}')")
    else:
        psql("CREATE EXTENSION stdesign")
    # trust runs as the role the sigv4 key is made for (this superuser), so
    # that the two modes differ by their authentication only
    me = psql("SELECT current_user")
    psql("ALTER SYSTEM SET stdesign.http_trust_role = '%s'" % me.replace("'", "''"))
    psql("ALTER SYSTEM SET stdesign.http_trust_allow_superuser = on")
    psql("SELECT pg_reload_conf()")
    time.sleep(1)
    load(PORT, "AKIDEXAMPLE", "secret")
    psql("ANALYZE")
    workers = [int(x) for x in psql("SELECT pid FROM stdesign.http_status()").split()]
    key, secret = psql("SELECT access_key_id || ' ' || secret_access_key FROM "
                       "st_create_access_key(current_user::regrole)").split()
    dyn = None
    if "dynalite" in systems:
        dyn = subprocess.Popen(["node", DYNALITE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        dport = json.loads(dyn.stdout.readline())["port"]
        load(dport, "AKIDEXAMPLE", "secret")
    rows = []
    inside = {}
    for op in ops:
        res = {}
        runs = {"trust": [], "sigv4": []}
        script = lua(PORT, op, key, secret)
        for r in range(rounds):
            for mode in (("trust", "sigv4") if r % 2 == 0 else ("sigv4", "trust")):
                if mode not in systems:
                    continue
                psql("ALTER SYSTEM SET stdesign.http_auth = '%s'" % mode)
                psql("SELECT pg_reload_conf()")
                time.sleep(0.5)
                t0 = ticks(workers)
                w0 = in_worker(op)
                rps, total, p50, p99, errs = wrk(PORT, script)
                runs[mode].append((rps, total, p50, p99, ticks(workers) - t0, errs,
                                   [b - a for a, b in zip(w0, in_worker(op))]))
        for mode, rs in runs.items():
            if rs:
                total = sum(x[1] for x in rs)
                p50 = sorted(rs, key=lambda x: ms(x[2]))[len(rs) // 2][2]
                p99 = sorted(rs, key=lambda x: ms(x[3]))[len(rs) // 2][3]
                res[mode] = (sum(x[0] for x in rs) / len(rs), p50, p99,
                             sum(x[4] for x in rs) / 1e3 / max(total, 1), sum(x[5] for x in rs))
                w = [sum(x[6][i] for x in rs) for i in range(3)]
                if w[0] > 0:
                    inside[(op, mode)] = (w[1] / w[0], w[2] / w[0])
        if "pgbench" in systems:
            tps, total, p50, p99, cpu = pgbench(op)
            res["pgbench"] = (tps, p50, p99, cpu / 1e3 / max(total, 1), 0)
        if dyn is not None:
            script = lua(dport, op, "AKIDEXAMPLE", "secret")
            t0 = ticks([dyn.pid])
            rps, total, p50, p99, errs = wrk(dport, script)
            res["dynalite"] = (rps, p50, p99, (ticks([dyn.pid]) - t0) / 1e3 / max(total, 1), errs)
        rows.append((op, res))
    if dyn is not None:
        dyn.stdin.close()
        dyn.wait()
    if existing:
        psql("ALTER SYSTEM RESET stdesign.http_auth")
        psql("ALTER SYSTEM RESET stdesign.http_trust_role")
        psql("ALTER SYSTEM RESET stdesign.http_trust_allow_superuser")
        psql("ALTER SYSTEM RESET stdesign.http_track_timing")
        psql("SELECT pg_reload_conf()")
    print("| operation | system | req/s | p50 | p99 | server CPU us/req | vs pgbench | vs dynalite | errors |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for op, res in rows:
        for system in ("trust", "sigv4", "pgbench", "dynalite"):
            if system not in res:
                continue
            rps, p50, p99, cpu, errs = res[system]
            name = {"trust": "endpoint (trust)", "sigv4": "endpoint (sigv4)",
                    "pgbench": "pgbench st_api", "dynalite": "dynalite"}[system]
            print("| %s | %s | %.0f | %s | %s | %.0f | %.2fx | %.1fx | %d |" % (
                op, name, rps, p50, p99, cpu, rps / res.get("pgbench", (float("nan"),))[0],
                rps / res.get("dynalite", (float("nan"),))[0], errs))
    if inside:
        print()
        # SigV4's cost over trust: its authentication less trust's (which
        # looks at the Authorization header too), over trust's request
        print("| operation | in-worker CPU us/req (trust) | (sigv4) | auth us/req (trust) | (sigv4) "
              "| sigv4's auth share of its request | SigV4's cost over trust | whole request, sigv4 over trust |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for op, _ in rows:
            t = inside.get((op, "trust"))
            s = inside.get((op, "sigv4"))
            if t and s:
                print("| %s | %.1f | %.1f | %.2f | %.1f | %.1f%% | %+.1f%% | %+.1f%% |" % (
                    op, t[0], s[0], t[1], s[1], 100.0 * s[1] / s[0], 100.0 * (s[1] - t[1]) / t[0],
                    100.0 * (s[0] - t[0]) / t[0]))


main()
