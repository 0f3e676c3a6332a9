'use strict';
// AWS Signature Version 4 for DynamoDB's JSON protocol, with node:crypto and
// fetch only (no npm dependencies), for the integration tests.
//
// Environment (scripts/dynamodb-local sets all of them):
//   DDBST_ENDPOINT         e.g. http://127.0.0.1:8000
//   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, [AWS_SESSION_TOKEN]
//   AWS_REGION             e.g. us-east-1
//
//   const { dynamodb } = require('./sigv4.js');
//   const { status, data } = await dynamodb('ListTables', {});

const crypto = require('node:crypto');

const SERVICE = 'dynamodb';
const TARGET_PREFIX = 'DynamoDB_20120810.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

function sha256Hex(data) {
  return crypto.createHash('sha256').update(data, 'utf8').digest('hex');
}

function hmac(key, data) {
  return crypto.createHmac('sha256', key).update(data, 'utf8').digest();
}

// "20260314T100000Z" and "20260314" for a Date.
function amzDates(now) {
  const iso = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { amzDate: iso, dateStamp: iso.slice(0, 8) };
}

// Signs a request whose path is "/" and query empty (all DynamoDB's JSON
// protocol needs). headers: lower-case names to values; host is required.
// Returns the headers to send: the given ones plus x-amz-date,
// x-amz-content-sha256 and authorization.
function sign({ method = 'POST', path = '/', headers, body, region, accessKeyId,
                secretAccessKey, sessionToken, service = SERVICE, now = new Date() }) {
  if (!headers || !headers.host) throw new Error('sign: headers.host is required');
  if (!region || !accessKeyId || !secretAccessKey) {
    throw new Error('sign: region, accessKeyId and secretAccessKey are required');
  }
  const { amzDate, dateStamp } = amzDates(now);
  const payloadHash = sha256Hex(body);
  const all = { ...headers, 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
  if (sessionToken) all['x-amz-security-token'] = sessionToken;

  const names = Object.keys(all).map((n) => n.toLowerCase()).sort();
  const lower = Object.fromEntries(Object.entries(all).map(([k, v]) => [k.toLowerCase(), v]));
  const canonicalHeaders = names
    .map((n) => `${n}:${String(lower[n]).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [method, path, '', canonicalHeaders, signedHeaders, payloadHash].join('\n');

  const scope = `${dateStamp}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const kDate = hmac(`AWS4${secretAccessKey}`, dateStamp);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  const kSigning = hmac(kService, 'aws4_request');
  const signature = crypto.createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');

  return {
    ...all,
    authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, ` +
      `SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

function config(env = process.env) {
  const endpoint = env.DDBST_ENDPOINT;
  if (!endpoint) {
    throw new Error('DDBST_ENDPOINT is not set: run under scripts/dynamodb-local');
  }
  return {
    endpoint,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    accessKeyId: env.AWS_ACCESS_KEY_ID || 'local',
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY || 'local',
    sessionToken: env.AWS_SESSION_TOKEN || undefined,
  };
}

// Calls one DynamoDB operation. target: "ListTables" or
// "DynamoDB_20120810.ListTables"; body: an object (sent as JSON) or a string
// (sent as is). Resolves to { status, data, text, headers }, where data is the
// parsed JSON response (or null when it is not JSON). Does not throw on
// DynamoDB errors: check status (200) and data.__type.
async function dynamodb(target, body = {}, options = {}) {
  const cfg = { ...config(), ...options };
  const url = new URL(cfg.endpoint);
  if (url.pathname !== '/' && url.pathname !== '') {
    throw new Error(`DDBST_ENDPOINT must have no path: ${cfg.endpoint}`);
  }
  const fullTarget = target.includes('.') ? target : TARGET_PREFIX + target;
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const headers = sign({
    headers: {
      host: url.host,
      'content-type': CONTENT_TYPE,
      'x-amz-target': fullTarget,
    },
    body: payload,
    region: cfg.region,
    accessKeyId: cfg.accessKeyId,
    secretAccessKey: cfg.secretAccessKey,
    sessionToken: cfg.sessionToken,
  });
  delete headers.host; // fetch sets Host itself, to url.host (what we signed)
  const res = await fetch(new URL('/', url), { method: 'POST', headers, body: payload });
  const text = await res.text();
  let data = null;
  try {
    data = JSON.parse(text);
  } catch {
    data = null;
  }
  return { status: res.status, data, text, headers: res.headers };
}

module.exports = { dynamodb, sign, config, CONTENT_TYPE, TARGET_PREFIX };
