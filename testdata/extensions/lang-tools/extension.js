'use strict';
// Demo Language Tools: the editor features airvsx's tests drive through
// the driver and run. The demo language: one statement a line; "{" opens
// a block, "}" closes it; "TODO" is a warning.
const vscode = require('vscode');

// format re-indents by nesting and trims trailing blanks.
function format(doc, indentSize) {
  const edits = [];
  let depth = 0;
  for (let i = 0; i < doc.lineCount; i++) {
    const line = doc.lineAt(i);
    const text = line.text.trim();
    if (text.startsWith('}')) depth = Math.max(0, depth - 1);
    const want = text === '' ? '' : ' '.repeat(depth * indentSize) + text;
    if (want !== line.text) edits.push(vscode.TextEdit.replace(line.range, want));
    if (text.endsWith('{')) depth++;
  }
  return edits;
}

// lint returns a warning per TODO and an error per unbalanced brace.
function lint(doc) {
  const out = [];
  let depth = 0;
  for (let i = 0; i < doc.lineCount; i++) {
    const t = doc.lineAt(i).text;
    const todo = t.indexOf('TODO');
    if (todo >= 0) {
      const d = new vscode.Diagnostic(new vscode.Range(i, todo, i, todo + 4), 'TODO left in the code', vscode.DiagnosticSeverity.Warning);
      d.source = 'demo-lint';
      d.code = 'todo';
      out.push(d);
    }
    for (const c of t) {
      if (c === '{') depth++;
      if (c === '}' && --depth < 0) {
        out.push(new vscode.Diagnostic(new vscode.Range(i, 0, i, t.length), 'unbalanced }', vscode.DiagnosticSeverity.Error));
        depth = 0;
      }
    }
  }
  return out;
}

// Outline is the tree view: the blocks of the active demo document.
class Outline {
  constructor() {
    this.changed = new vscode.EventEmitter();
    this.onDidChangeTreeData = this.changed.event;
  }
  getChildren(el) {
    const ed = vscode.window.activeTextEditor;
    if (!ed || ed.document.languageId !== 'demo') return [];
    const lines = [];
    for (let i = 0; i < ed.document.lineCount; i++) lines.push(ed.document.lineAt(i).text.trim());
    if (!el) return lines.map((t, i) => ({ line: i, text: t })).filter((x) => x.text.endsWith('{'));
    const out = [];
    let depth = 0;
    for (let i = el.line + 1; i < lines.length; i++) {
      if (lines[i].startsWith('}') && depth-- === 0) break;
      if (depth === 0 && lines[i] && !lines[i].startsWith('}')) out.push({ line: i, text: lines[i], leaf: !lines[i].endsWith('{') });
      if (lines[i].endsWith('{')) depth++;
    }
    return out;
  }
  getTreeItem(el) {
    const item = new vscode.TreeItem(el.text.replace(/\s*\{$/, ''), el.leaf ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Collapsed);
    item.description = `line ${el.line + 1}`;
    item.iconPath = new vscode.ThemeIcon(el.leaf ? 'symbol-field' : 'symbol-namespace');
    return item;
  }
}

function activate(context) {
  const selector = { language: 'demo' };
  const diagnostics = vscode.languages.createDiagnosticCollection('demo-lint');
  const relint = (doc) => { if (doc.languageId === 'demo') diagnostics.set(doc.uri, lint(doc)); };
  const outline = new Outline();
  context.subscriptions.push(
    diagnostics,
    vscode.languages.registerDocumentFormattingEditProvider(selector, {
      provideDocumentFormattingEdits: (doc, options) => format(doc, vscode.workspace.getConfiguration('langTools').get('indent', options.tabSize)),
    }),
    vscode.languages.registerHoverProvider(selector, {
      provideHover(doc, pos) {
        const r = doc.getWordRangeAtPosition(pos);
        if (!r) return undefined;
        const md = new vscode.MarkdownString();
        md.appendMarkdown('**demo** word ');
        md.appendCodeblock(doc.getText(r), 'demo');
        return new vscode.Hover(md, r);
      },
    }),
    vscode.languages.registerCompletionItemProvider(selector, {
      provideCompletionItems(doc, pos) {
        const prefix = doc.lineAt(pos.line).text.slice(0, pos.character);
        const block = new vscode.CompletionItem('block', vscode.CompletionItemKind.Snippet);
        block.insertText = new vscode.SnippetString('${1:name} {\n\t$0\n}');
        const kw = ['print', 'let', 'return'].map((k) => new vscode.CompletionItem(k, vscode.CompletionItemKind.Keyword));
        return [block, ...kw].filter((c) => !/\w$/.test(prefix) || c.label.startsWith(prefix.match(/\w+$/)[0]));
      },
    }, '.'),
    vscode.languages.registerCodeActionsProvider(selector, {
      provideCodeActions(doc, range, ctx) {
        return ctx.diagnostics.filter((d) => d.code === 'todo').map((d) => {
          const fix = new vscode.CodeAction('Remove the TODO', vscode.CodeActionKind.QuickFix);
          fix.edit = new vscode.WorkspaceEdit();
          fix.edit.delete(doc.uri, d.range);
          fix.diagnostics = [d];
          return fix;
        });
      },
    }),
    vscode.languages.registerDocumentSymbolProvider(selector, {
      provideDocumentSymbols(doc) {
        const out = [];
        for (let i = 0; i < doc.lineCount; i++) {
          const t = doc.lineAt(i).text.trim();
          if (t.endsWith('{')) out.push(new vscode.DocumentSymbol(t.slice(0, -1).trim(), '', vscode.SymbolKind.Namespace, doc.lineAt(i).range, doc.lineAt(i).range));
        }
        return out;
      },
    }),
    vscode.workspace.onDidOpenTextDocument(relint),
    vscode.workspace.onDidChangeTextDocument((e) => { relint(e.document); outline.changed.fire(); }),
    vscode.workspace.onDidCloseTextDocument((doc) => diagnostics.delete(doc.uri)),
    vscode.window.createTreeView('langTools.outline', { treeDataProvider: outline }),
    vscode.workspace.registerTextDocumentContentProvider('demo-notes', {
      provideTextDocumentContent: (uri) => `notes for ${uri.path}\nline two\n`,
    }),
    vscode.commands.registerCommand('langTools.pickGreeting', async () => {
      const pick = await vscode.window.showQuickPick(['Hello', 'Bonjour', 'Hallo'], { placeHolder: 'Pick a greeting' });
      if (pick) vscode.window.showInformationMessage(`${pick}!`);
      return pick === undefined ? null : pick;
    }),
    vscode.commands.registerCommand('langTools.askName', async () => {
      const name = await vscode.window.showInputBox({ prompt: 'Your name', validateInput: (v) => (v.trim() ? undefined : 'a name, please') });
      return name === undefined ? null : `Hello, ${name}`;
    }),
    vscode.commands.registerCommand('langTools.showNotes', async () => {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse('demo-notes:/today'));
      await vscode.window.showTextDocument(doc);
      return { text: doc.getText(), lines: doc.lineCount, active: vscode.window.activeTextEditor.document.uri.toString() };
    }),
    vscode.commands.registerTextEditorCommand('langTools.upperCaseLine', (editor, edit) => {
      const line = editor.document.lineAt(editor.selection.active.line);
      edit.replace(line.range, line.text.toUpperCase());
    }),
    vscode.commands.registerCommand('langTools.renameWord', async (from, to) => {
      const we = new vscode.WorkspaceEdit();
      for (const doc of vscode.workspace.textDocuments.filter((d) => d.languageId === 'demo')) {
        const text = doc.getText();
        for (let i = text.indexOf(from); i >= 0; i = text.indexOf(from, i + from.length)) {
          we.replace(doc.uri, new vscode.Range(doc.positionAt(i), doc.positionAt(i + from.length)), to);
        }
      }
      const ok = await vscode.workspace.applyEdit(we);
      await vscode.workspace.saveAll();
      return { ok, edits: we.size };
    }),
  );
  for (const doc of vscode.workspace.textDocuments) relint(doc);
}

module.exports = { activate };
