import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

/**
 * SQL token colours from the stylesheet's variables, so they follow the light and dark themes.
 * CodeMirror's default style is made for white paper: its purple keywords read at ~1.7:1 on the dark
 * theme. Each `--syntax-*` colour is held to 4.5:1 on the editor's backgrounds (test/console/contrast).
 */
const style = HighlightStyle.define([
  { tag: [t.keyword, t.operatorKeyword, t.modifier, t.controlKeyword], color: 'var(--syntax-keyword)' },
  { tag: [t.string, t.special(t.string), t.regexp], color: 'var(--syntax-string)' },
  { tag: [t.number, t.bool, t.null, t.atom], color: 'var(--syntax-number)' },
  { tag: [t.typeName, t.standard(t.name), t.function(t.variableName)], color: 'var(--syntax-type)' },
  { tag: [t.comment, t.lineComment, t.blockComment], color: 'var(--syntax-comment)', fontStyle: 'italic' },
  { tag: t.invalid, color: 'var(--danger)' },
]);

export const sqlHighlight = syntaxHighlighting(style);
