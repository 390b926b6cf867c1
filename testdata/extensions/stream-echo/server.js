'use strict';
// The program the extension talks to, as a language server talks to its
// client: Content-Length framed JSON on stdin and stdout.
//
//   node server.js          answers each message {id, method, params} with
//                           {id, result: {method, params, n, pid}}; "exit"
//                           {code} exits with code; at the end of stdin it
//                           sends {method: "eof", params: {n}} and exits 0.
//   node server.js flood N  writes N MiB to stdout and exits.
if (process.argv[2] === 'flood') {
  const chunk = Buffer.alloc(1 << 20, 'x');
  let left = Number(process.argv[3]);
  const more = () => {
    while (left > 0) {
      left--;
      if (!process.stdout.write(chunk)) return process.stdout.once('drain', more);
    }
  };
  more();
  return;
}

let buf = Buffer.alloc(0);
let n = 0;
const send = (msg) => {
  const body = Buffer.from(JSON.stringify(msg));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
};
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  for (;;) {
    const head = buf.indexOf('\r\n\r\n');
    if (head < 0) return;
    const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())[1]);
    if (buf.length < head + 4 + len) return;
    const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
    buf = buf.subarray(head + 4 + len);
    n++;
    if (msg.method === 'exit') {
      process.exitCode = msg.params.code;
      process.stdin.destroy();
      return;
    }
    send({ id: msg.id, result: { method: msg.method, params: msg.params, n, pid: process.pid } });
  }
});
process.stdin.on('end', () => send({ method: 'eof', params: { n } }));
