// @ts-check
'use strict';
// The editor's own commands that extensions call through
// commands.executeCommand: setContext, vscode.open, the
// vscode.execute*Provider family (the same providers the launcher asks,
// answered with vscode objects), and formatting the active document.
const { Uri, Range, CompletionList, CancellationToken } = require('./types.js');

module.exports = function builtins(host, reg) {
  const context = new Map(); // setContext keys

  // ask runs the providers of kind for uri, best match first, returning
  // their raw answers (vscode objects), as the vscode.execute*Provider
  // commands do.
  async function ask(kind, uri, extra) {
    const doc = await reg.documents.openTextDocument(null, uri);
    const k = reg.languages.KINDS[kind];
    const out = [];
    for (const x of reg.languages.matching(kind, doc)) {
      const tok = CancellationToken.None;
      const store = host.als.getStore();
      const v = await host.als.run({ ext: x.ext, cause: store && store.cause }, () => x.provider[k.method](doc, ...k.args(doc, extra, reg.languages), tok));
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) out.push(...v); else out.push(v);
    }
    return out;
  }
  const at = (p) => ({ position: p ? { line: p.line, character: p.character } : undefined });

  const commands = {
    setContext: (key, value) => { context.set(String(key), value); },
    'vscode.open': async (uri) => {
      const u = uri instanceof Uri ? uri : Uri.parse(String(uri));
      if (u.scheme === 'http' || u.scheme === 'https' || u.scheme === 'mailto') { host.emit(null, 'openExternal', { uri: u.toString() }); return; }
      const doc = await reg.documents.openTextDocument(null, u);
      reg.documents.show(doc);
    },
    'vscode.openWith': (uri) => commands['vscode.open'](uri),
    'workbench.action.closeActiveEditor': () => { const a = reg.documents.active; if (a) reg.documents.close(a.document); },
    'workbench.action.files.save': async () => { const a = reg.documents.active; if (a) await reg.documents.save(a.document); },
    'workbench.action.files.saveAll': async () => { for (const d of reg.documents.all()) if (d.isDirty) await reg.documents.save(d); },
    'vscode.executeCompletionItemProvider': async (uri, pos, ch) => {
      const items = [];
      for (const v of await ask('completion', uri, Object.assign(at(pos), { triggerCharacter: ch }))) {
        if (v instanceof CompletionList || Array.isArray(v.items)) items.push(...v.items); else items.push(v);
      }
      return new CompletionList(items, false);
    },
    'vscode.executeHoverProvider': (uri, pos) => ask('hover', uri, at(pos)),
    'vscode.executeDefinitionProvider': (uri, pos) => ask('definition', uri, at(pos)),
    'vscode.executeDeclarationProvider': (uri, pos) => ask('declaration', uri, at(pos)),
    'vscode.executeTypeDefinitionProvider': (uri, pos) => ask('typeDefinition', uri, at(pos)),
    'vscode.executeImplementationProvider': (uri, pos) => ask('implementation', uri, at(pos)),
    'vscode.executeReferenceProvider': (uri, pos) => ask('references', uri, at(pos)),
    'vscode.executeDocumentHighlights': (uri, pos) => ask('documentHighlights', uri, at(pos)),
    'vscode.executeDocumentSymbolProvider': (uri) => ask('documentSymbols', uri, {}),
    'vscode.executeCodeActionProvider': (uri, range, only) => ask('codeActions', uri, { range: range instanceof Range ? range : new Range(range, range), only }),
    'vscode.executeCodeLensProvider': (uri) => ask('codeLenses', uri, {}),
    'vscode.executeFormatDocumentProvider': (uri, options) => ask('formatting', uri, { options }),
    'vscode.executeFormatRangeProvider': (uri, range, options) => ask('rangeFormatting', uri, { range, options }),
    'vscode.executeSignatureHelpProvider': async (uri, pos) => (await ask('signatureHelp', uri, at(pos)))[0],
    'vscode.executeDocumentRenameProvider': async (uri, pos, newName) => (await ask('rename', uri, Object.assign(at(pos), { newName })))[0],
    'vscode.executeFoldingRangeProvider': (uri) => ask('foldingRanges', uri, {}),
    'vscode.executeLinkProvider': (uri) => ask('documentLinks', uri, {}),
    // editor.action.formatDocument formats the active document with the
    // best formatter and applies its edits (unsaved, as in VS Code).
    'editor.action.formatDocument': async () => {
      const a = reg.documents.active;
      if (!a) return;
      const edits = await ask('formatting', a.document.uri, { options: { tabSize: a.options.tabSize, insertSpaces: a.options.insertSpaces } });
      reg.documents.apply(a.document, edits, 'format');
    },
    'workbench.action.tasks.runTask': async (name) => {
      const all = await reg.tasks.fetchTasks();
      const t = name ? all.find((x) => x.name === name || `${x.source}: ${x.name}` === name) : all[0];
      if (!t) { host.emit(null, 'message', { level: 'info', text: name ? `no task ${name}` : 'no tasks' }); return; }
      return reg.tasks.api({ id: t.source }, null).executeTask(t);
    },
  };

  // The workbench's commands that show a view, a panel or the settings:
  // the editor's to show; the host has no window, so they do nothing.
  for (const id of ['workbench.view.explorer', 'workbench.view.search', 'workbench.view.scm', 'workbench.view.debug', 'workbench.view.extensions',
    'workbench.view.testing', 'workbench.action.openSettings', 'workbench.action.openSettingsJson', 'workbench.action.openGlobalSettings',
    'workbench.action.openWorkspaceSettings', 'workbench.action.showCommands', 'workbench.action.focusActiveEditorGroup', 'workbench.action.togglePanel',
    'workbench.action.reloadWindow', 'workbench.files.action.focusFilesExplorer', 'revealInExplorer', 'workbench.action.output.toggleOutput']) {
    commands[id] = () => { host.emit(null, 'showView', { name: id }); };
  }

  return {
    context,
    has: (id) => Object.prototype.hasOwnProperty.call(commands, id),
    ids: () => Object.keys(commands),
    run: (id, args) => commands[id](...args),
  };
};
