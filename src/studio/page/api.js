// The endpoint's operations, called from the page: DynamoDB's
// (X-Amz-Target DynamoDB_20120810.<Op>) and the studio's own
// (StDesign_Studio.<Op>).  Under trust each call carries the page's token;
// under sigv4 each call is signed in the browser with the access key the
// user typed, which lives in this module's memory only.

const enc = new TextEncoder();
const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? '';

export const auth = meta('stdesign-auth') === 'sigv4' ? 'sigv4' : 'trust';
const token = meta('stdesign-token');
let key = null;           // {id, secret, region}: sigv4 only
export const stats = { calls: 0, items: 0, ms: 0 };

export function setKey(id, secret, region) {
  key = { id, secret, region: region || 'us-east-1' };
}
export function hasKey() { return key !== null; }

const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
const sha256 = async (text) => hex(await crypto.subtle.digest('SHA-256', enc.encode(text)));
async function hmac(keyBytes, text) {
  const k = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', k, enc.encode(text));
}

// Signature Version 4 of a POST / (the headers the browser lets us sign).
export async function sign(headers, body, now = new Date()) {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const host = location.host;
  const h = { 'content-type': headers['Content-Type'], host, 'x-amz-date': amzDate, 'x-amz-target': headers['X-Amz-Target'] };
  const names = Object.keys(h).sort();
  const canonical = ['POST', '/', '', ...names.map((n) => `${n}:${h[n]}`), '', names.join(';'), await sha256(body)].join('\n');
  const scope = `${date}/${key.region}/dynamodb/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, await sha256(canonical)].join('\n');
  let k = await hmac(enc.encode('AWS4' + key.secret), date);
  k = await hmac(k, key.region);
  k = await hmac(k, 'dynamodb');
  k = await hmac(k, 'aws4_request');
  const signature = hex(await hmac(k, toSign));
  headers['X-Amz-Date'] = amzDate;
  headers.Authorization = `AWS4-HMAC-SHA256 Credential=${key.id}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
}

export class ApiError extends Error {
  constructor(type, message, status) {
    super(message || type);
    this.type = type;
    this.status = status;
  }
}

// call('Query', {...}) or call('StDesign_Studio.GetModel', {...})
export async function call(op, request) {
  const target = op.includes('.') ? op : `DynamoDB_20120810.${op}`;
  const body = JSON.stringify(request ?? {});
  const headers = { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': target };
  if (auth === 'sigv4') {
    if (!key) throw new ApiError('MissingAuthenticationTokenException', 'Sign in with an access key first', 0);
    await sign(headers, body);
  } else {
    headers['X-StDesign-Studio-Token'] = token;
    // trust reads no credentials, but a request must carry a signature's shape
    headers.Authorization = 'AWS4-HMAC-SHA256 Credential=studio/20000101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0';
  }
  const t0 = performance.now();
  const resp = await fetch('/', { method: 'POST', headers, body, credentials: 'omit', cache: 'no-store' });
  const text = await resp.text();
  stats.calls++;
  stats.ms += performance.now() - t0;
  let out;
  try { out = JSON.parse(text); } catch { out = null; }
  if (!resp.ok) {
    const type = String(out?.__type ?? `HTTP ${resp.status}`).replace(/^.*#/, '');
    throw new ApiError(type, String(out?.message ?? out?.Message ?? text), resp.status);
  }
  if (out && typeof out.ScannedCount === 'number') stats.items += out.ScannedCount;
  else if (out && Array.isArray(out.Items)) stats.items += out.Items.length;
  return out;
}
