'use strict';
const vscode = require('vscode');
const cp = require('child_process');
const path = require('path');

// connect starts node (the one named, else the host's own) running
// server.js over stdio and returns a client: request(method, params)
// resolves with the answer; notes are the messages that answered
// nothing (the server's "eof"). raw leaves stdout to the caller.
function connect(node, args, raw) {
  const child = cp.spawn(node || process.execPath, [path.join(__dirname, 'server.js'), ...(args || [])]);
  const pid = child.pid; // set at once, as vscode-languageclient needs
  const waiting = new Map();
  const notes = [];
  let buf = Buffer.alloc(0);
  let id = 0;
  if (!raw) child.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())[1]);
      if (buf.length < head + 4 + len) return;
      const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
      buf = buf.subarray(head + 4 + len);
      if (waiting.has(msg.id)) { waiting.get(msg.id)(msg.result); waiting.delete(msg.id); } else notes.push(msg);
    }
  });
  const ended = new Promise((resolve) => {
    child.on('error', (err) => resolve({ error: err.message, code: err.code }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  const write = (msg) => {
    const body = Buffer.from(JSON.stringify(msg));
    child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin.write(body);
  };
  return {
    child, pid, notes, ended,
    request: (method, params) => new Promise((resolve) => { waiting.set(++id, resolve); write({ id, method, params }); }),
    notify: (method, params) => write({ method, params }),
  };
}

const held = [];

function activate(context) {
  const reg = (name, fn) => context.subscriptions.push(vscode.commands.registerCommand('streamEcho.' + name, fn));

  // converse exchanges count messages, ends stdin and returns what came
  // back; with exitCode, it asks the server to exit with it instead.
  reg('converse', async (node, count, exitCode) => {
    const c = connect(node);
    const spawned = new Promise((resolve) => c.child.once('spawn', () => resolve(true)));
    const replies = [];
    for (let i = 0; i < (count || 3); i++) replies.push(await c.request('echo', { i, text: 'message ' + i }));
    if (exitCode !== undefined) c.notify('exit', { code: exitCode });
    else c.child.stdin.end();
    const end = await c.ended;
    return { pid: c.pid, virtual: c.pid >= 1 << 22, spawned: await spawned, replies, notes: c.notes, end, exitCode: c.child.exitCode, signalCode: c.child.signalCode };
  });

  // kill starts the server, talks once, then kills it by child.kill
  // ("child") or by process.kill(child.pid) ("process").
  reg('kill', async (node, how, signal) => {
    const c = connect(node);
    const first = await c.request('hello', {});
    const killed = how === 'process' ? process.kill(c.pid, signal) : c.child.kill(signal);
    const end = await c.ended;
    let after;
    try { process.kill(c.pid, 0); after = 'alive'; } catch (err) { after = err.code; }
    return { serverPid: first.pid, killed, end, after };
  });

  // flood has the server write mib MiB and reads it slowly: a pause of
  // pauseMs after every MiB.
  reg('flood', async (node, mib, pauseMs) => {
    const c = connect(node, ['flood', String(mib)], true);
    let bytes = 0;
    let next = 1 << 20;
    c.child.stdout.on('data', (d) => {
      bytes += d.length;
      if (bytes >= next) {
        next += 1 << 20;
        c.child.stdout.pause();
        setTimeout(() => c.child.stdout.resume(), pauseMs);
      }
    });
    const end = await c.ended;
    return { bytes, end };
  });

  // hold starts count servers and keeps them; it returns each one's pid
  // (the real one, from its answer) or its refusal.
  reg('hold', async (node, count) => {
    const out = [];
    for (let i = 0; i < count; i++) {
      const c = connect(node);
      const r = await Promise.race([c.request('hello', {}), c.ended]);
      if (r.pid) { held.push(c); out.push({ pid: r.pid }); } else out.push(r);
    }
    return out;
  });

  // release ends the held servers' stdin and waits for them.
  reg('release', async () => {
    const ends = held.splice(0).map((c) => { c.child.stdin.end(); return c.ended; });
    return Promise.all(ends);
  });
}

function deactivate() {}

module.exports = { activate, deactivate };
