/** Burrow's logo for the docs UI: a burrow entrance (a dark arch in a mound) and the name. */
export const BURROW_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40" viewBox="0 0 150 40">
<title>Burrow</title>
<path d="M2 36 Q20 4 38 36 Z" fill="#8a5a2b"/>
<path d="M12 36 Q20 18 28 36 Z" fill="#2b1a0c"/>
<text x="46" y="28" font-family="Helvetica, Arial, sans-serif" font-size="22" font-weight="700" fill="#8a5a2b">Burrow</text>
</svg>`;
