"use strict";
const vscode = require("vscode");

// webviewPanel.open calls vscode.window.createWebviewPanel, which the
// airvsx host does not implement: the call throws "vscode.window.
// createWebviewPanel is not supported by the airvsx host", and inspect
// and install name it beforehand.
function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand("webviewPanel.open", () => {
    const panel = vscode.window.createWebviewPanel("webviewPanel", "Panel", vscode.ViewColumn.One, {});
    panel.webview.html = "<p>hello</p>";
  }));
}

module.exports = { activate };
