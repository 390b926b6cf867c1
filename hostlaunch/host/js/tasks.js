// @ts-check
'use strict';
// vscode.tasks: task providers, fetchTasks and executeTask. A
// CustomExecution runs in the host (its Pseudoterminal becomes a
// terminal); a ShellExecution or ProcessExecution is a program, started
// through the spawn broker as the extension that executes it: it needs
// the "spawn" capability and a policy that lists the program, like any
// other process an extension starts.
const { Shared, token } = require('./shared.js');
const { ShellExecution, ProcessExecution, CustomExecution } = require('./types.js');

module.exports = function tasks(host, reg) {
  const providers = new Map(); // type -> [{ext, provider}]
  const executions = new Set();
  const ev = (n) => new Shared(host, n);
  const events = { start: ev('onDidStartTask'), end: ev('onDidEndTask'), startProcess: ev('onDidStartTaskProcess'), endProcess: ev('onDidEndTaskProcess') };

  async function fetchTasks(filter) {
    const out = [];
    for (const [type, list] of providers) {
      if (filter && filter.type && filter.type !== type) continue;
      for (const p of list) {
        const t = token(10000);
        const store = host.als.getStore();
        try {
          const got = await host.als.run({ ext: p.ext, cause: store && store.cause }, () => p.provider.provideTasks(t.token));
          if (Array.isArray(got)) out.push(...got.filter(Boolean));
        } catch (err) {
          host.emit(p.ext, 'error', { text: `provideTasks (${type}): ${err && err.stack || err}` });
        } finally { t.dispose(); }
      }
    }
    return out;
  }

  // runProgram starts a program task through ext's child_process (the
  // spawn broker).
  function runProgram(ext, task, execution, finish) {
    let file, args;
    if (execution instanceof ShellExecution || (typeof execution.commandLine === 'string') || (execution.command !== undefined && !(execution instanceof ProcessExecution))) {
      const line = execution.commandLine !== undefined ? String(execution.commandLine)
        : [execution.command, ...(execution.args || [])].map((a) => (typeof a === 'object' && a ? a.value : a)).join(' ');
      file = '/bin/sh'; args = ['-c', line];
    } else {
      file = String(execution.process); args = (execution.args || []).map(String);
    }
    const cp = reg.childProcessOf(ext); // the seat belt's module: refuses without "spawn"
    const cwd = execution.options && execution.options.cwd;
    const child = cp.spawn(file, args, { cwd });
    const name = task.name;
    child.stdout.on('data', (d) => host.emit(ext, 'terminal', { name, text: d.toString(), level: 'output' }));
    child.stderr.on('data', (d) => host.emit(ext, 'terminal', { name, text: d.toString(), level: 'output' }));
    child.on('error', (err) => { host.emit(ext, 'error', { text: `task ${name}: ${err && err.message || err}` }); finish(undefined); });
    child.on('close', (code) => finish(typeof code === 'number' ? code : undefined));
    return child;
  }

  async function executeTask(ext, task) {
    if (!task || !task.execution) throw new Error('executeTask: the task has no execution');
    const execution = { task, terminate: () => {} };
    executions.add(execution);
    events.start.fire({ execution });
    let done = false;
    const finish = (code) => {
      if (done) return;
      done = true;
      executions.delete(execution);
      events.endProcess.fire({ execution, exitCode: code });
      events.end.fire({ execution });
      host.emit(ext, 'task', { name: task.name, text: code === undefined ? 'ended' : `exited with code ${code}` });
    };
    host.emit(ext, 'task', { name: task.name, text: 'started' });
    const x = task.execution;
    if (x instanceof CustomExecution) {
      const cb = x.callback || x._callback;
      const pty = await cb.call(x, task.definition);
      const term = reg.window.createTerminalFor(ext, { name: task.name, pty });
      execution.terminate = () => term.dispose();
      if (pty && typeof pty.onDidClose === 'function') pty.onDidClose((code) => finish(typeof code === 'number' ? code : undefined));
      events.startProcess.fire({ execution, processId: undefined });
    } else {
      const child = runProgram(ext, task, x, finish);
      execution.terminate = () => child.kill();
      events.startProcess.fire({ execution, processId: child.pid });
    }
    return execution;
  }

  return {
    fetchTasks,
    api(ext, api) {
      return {
        registerTaskProvider: (type, provider) => {
          type = String(type);
          const entry = { ext, provider };
          if (!providers.has(type)) providers.set(type, []);
          providers.get(type).push(entry);
          return { dispose: () => { const l = providers.get(type) || []; const i = l.indexOf(entry); if (i >= 0) l.splice(i, 1); } };
        },
        fetchTasks,
        executeTask: (task) => executeTask(ext, task),
        get taskExecutions() { return [...executions]; },
        onDidStartTask: events.start.event(ext),
        onDidEndTask: events.end.event(ext),
        onDidStartTaskProcess: events.startProcess.event(ext),
        onDidEndTaskProcess: events.endProcess.event(ext),
      };
    },
  };
};
