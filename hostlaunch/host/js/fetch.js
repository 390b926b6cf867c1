// @ts-check
'use strict';
// The fetch an extension granted "network" gets. Node's own cannot work
// (the kernel sandbox refuses every socket inside the host): the request
// goes to the launcher's network broker ("net/fetch"), which makes it
// only to the hosts the extension's policy lists (hosts), follows
// redirects among them only, and answers with the whole response (at most
// 16 MiB) within 30 s. The answer is a real Response.

// NULL_BODY are the statuses whose Response has no body.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

module.exports = function (host) {
  return async function fetch(input, init) {
    const s = host.als.getStore();
    const ext = s && s.ext;
    // Request normalizes what fetch accepts: URL or Request, method,
    // headers, a body of string, Buffer, TypedArray, URLSearchParams, Blob.
    const req = new Request(input, init);
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : null;
    const signal = req.signal;
    if (signal && signal.aborted) throw signal.reason;
    const asked = host.request('net/fetch', {
      extension: ext ? ext.id : '', cause: s ? s.cause : undefined,
      method: req.method, url: req.url, headers: [...req.headers], body: body ? body.toString('base64') : '',
    });
    // An abort rejects at once; the broker's answer, when it comes, is dropped.
    const r = await (signal ? Promise.race([asked, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]) : asked);
    const res = new Response(NULL_BODY.has(r.status) || req.method === 'HEAD' ? null : Buffer.from(r.body, 'base64'),
      { status: r.status, statusText: r.statusText, headers: r.headers });
    Object.defineProperty(res, 'url', { value: r.url || req.url });
    Object.defineProperty(res, 'redirected', { value: !!r.url && r.url !== req.url });
    return res;
  };
};
