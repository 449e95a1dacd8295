/** The words and patterns prompts are read with. */
export type Op = '=' | '!=' | 'contains' | '>' | '<' | '>=' | '<=';

export const OPS: Array<[string, Op]> = [
  ['!=', '!='],
  ['<>', '!='],
  ['>=', '>='],
  ['<=', '<='],
  ['==', '='],
  ['=', '='],
  ['>', '>'],
  ['<', '<'],
  ['is not equal to', '!='],
  ['is not', '!='],
  ['does not equal', '!='],
  ['not equal to', '!='],
  ['equals', '='],
  ['equal to', '='],
  ['is', '='],
  ['contains', 'contains'],
  ['includes', 'contains'],
  ['like', 'contains'],
];
const OP_RE = OPS.map(([w]) => w.replace(/[=<>!]/g, (c) => `\\${c}`)).join('|');
export const FILTER_RE = new RegExp(
  `\\b(?:where|with|whose|when|and|having|if|filter(?:\\s+(?:on|by|for|to|where))?|only(?:\\s+(?:for|where))?)\\s+(?:the\\s+)?([\\w$.\\-]+(?:\\s+[\\w$.\\-]+)??)\\s*(${OP_RE})\\s*(§\\d+|[^\\s,;]+)`,
);
/** `browser = Chrome` needs no "where". */
export const SYMBOL_FILTER_RE = /([\w$.-]+)\s*(!=|<>|>=|<=|==|=|>|<)\s*(§\d+|[^\s,;=<>!]+)/;

/** Values that name their property: "in Chrome", "on iOS", "mobile users". */
export const VALUE_HINTS: Record<string, [string, string]> = {
  chrome: ['$browser', 'Chrome'],
  firefox: ['$browser', 'Firefox'],
  safari: ['$browser', 'Safari'],
  edge: ['$browser', 'Microsoft Edge'],
  opera: ['$browser', 'Opera'],
  ios: ['$os', 'iOS'],
  android: ['$os', 'Android'],
  windows: ['$os', 'Windows'],
  macos: ['$os', 'Mac OS X'],
  linux: ['$os', 'Linux'],
  mobile: ['$device_type', 'Mobile'],
  desktop: ['$device_type', 'Desktop'],
  tablet: ['$device_type', 'Tablet'],
};
export const HINT_RE = new RegExp(
  `\\b(not|except|excluding|without)?\\s*(?:in|on|using|from|via|only)?\\s*(${Object.keys(VALUE_HINTS).join('|')})\\b`,
);
export const BY_RE =
  /\b(?:by|per|for each|broken down by|split by|grouped by|group by|across)\s+(?:the\s+)?((?:§\d+|[\w$.-]+)(?:\s+[\w$.-]+)?)/;
export const NEGATION =
  /\b(?:but|and)\s+(?:did not|does not|have not|has not|not|never)\b|\b(?:did not|does not|have not|has not|never|without|except|excluding)\b/;

export const STOPWORDS = new Set(
  `a an the of for in on at to from with and or but me my our us we i you show give get list find display
  chart graph plot table query sql write please can could would like want what which how many much number count
  counts total totals sum amount all each every by per over as is are was were be been being do did does done doing
  has have had that who whom whose there their them they this these those it its than then into about some any
  event events data time times row rows result results user users people persons person visitor visitors customer
  customers account accounts unique distinct active top most least popular common frequent frequently biggest
  largest best recent recently latest newest first last trend breakdown broken down split grouped group performed
  triggered fired sent happened occurred made also only just name names add filter where one ones sessions limit limited restrict narrow exclude`.split(
    /\s+/,
  ),
);
