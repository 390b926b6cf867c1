'use strict';
// Appends this extension's ID to activation-order.txt in the first
// workspace folder as it activates: the order the hosts really activated
// the startup-* extensions in.
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

const orderFile = () => {
  const folders = vscode.workspace.workspaceFolders;
  return folders && folders.length > 0 ? path.join(folders[0].uri.fsPath, 'activation-order.txt') : '';
};

exports.activate = (context) => {
  if (orderFile()) fs.appendFileSync(orderFile(), 'airvsx-test.startup-lib\n');
};
