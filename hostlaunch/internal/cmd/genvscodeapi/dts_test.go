package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDTS(t *testing.T) {
	src := `/* header { */
declare module 'vscode' {
	/** The version. { */
	export const version: string;
	export class Range { constructor(a: number); start: { line: number }; }
	export enum ViewColumn { One = 1 }
	export interface TextDocument { uri: string }
	export type Selector = string | { language: '}' };
	export namespace window {
		export const activeTextEditor: TextDocument | undefined;
		export function showInformationMessage(m: string, o: { modal: boolean }): Thenable<void>;
		export function showInformationMessage(m: string): Thenable<void>;
		export let state: { focused: boolean };
	}
	namespace comments {
		function createCommentController(id: string): void;
	}
}
interface Thenable<T> { }
declare module 'other' { export const nope: string; }
`
	got, err := parseDTS([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &apiNames{
		Names: map[string]string{"version": kindVariable, "Range": kindClass, "ViewColumn": kindEnum, "window": kindNamespace, "comments": kindNamespace},
		Members: map[string][]string{
			"window":   {"activeTextEditor", "showInformationMessage", "state"},
			"comments": {"createCommentController"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseDTS mismatch (-want +got):\n%s", diff)
	}
	if _, err := parseDTS([]byte("declare module 'other' { export const x: 1; }")); err == nil {
		t.Errorf("parseDTS(no vscode module) = nil error")
	}
}
