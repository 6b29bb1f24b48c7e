/** The console page's style sheet, served as `/console.css`. */
export const PAGE_STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; }
header { display: flex; align-items: baseline; gap: 1rem; }
h1 { font-size: 1.4rem; margin: 0; }
h2 { font-size: 1.1rem; border-bottom: 1px solid #8884; padding-bottom: .2rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #8883; vertical-align: top; }
.muted { color: #888; }
.error { color: #c33; }
.state-ready, .state-busy { color: #2a2; }
.state-error, .state-listing-failed { color: #c33; }
details.tool { border: 1px solid #8884; border-radius: 4px; margin: .3rem 0; padding: .3rem .6rem; }
details.tool summary { cursor: pointer; }
.description { white-space: pre-wrap; margin: .3rem 0; }
form.tool-form label { display: block; margin: .3rem 0; }
form.tool-form input[type=text], form.tool-form input[type=number], form.tool-form select, textarea { width: 100%; box-sizing: border-box; }
textarea { font-family: ui-monospace, monospace; min-height: 4rem; }
pre { white-space: pre-wrap; word-break: break-word; background: #8881; padding: .4rem; margin: .2rem 0; }
img.content { max-width: 100%; }
.call { margin: .4rem 0; }
.question { border: 2px solid #c93; padding: .5rem; margin: .3rem 0; }
.question button { margin-right: .4rem; }
.app { border: 1px solid #8884; border-radius: 4px; margin: .4rem 0; padding: .4rem .6rem; }
.app iframe { width: 100%; min-height: 16rem; border: 1px solid #8883; background: #fff; }
.app-log { font-family: ui-monospace, monospace; font-size: .85rem; }
.waterfall h3 { font-size: 1rem; margin: .6rem 0 .2rem; }
.wf-row { display: grid; grid-template-columns: 14rem 1fr 14rem; gap: .5rem; align-items: center; font-size: .85rem; }
.wf-name { font-family: ui-monospace, monospace; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.wf-track { position: relative; height: .8rem; background: #8881; }
.wf-bar { position: absolute; top: 0; bottom: 0; background: #48c; min-width: 2px; }
.wf-row.error .wf-bar { background: #c33; }
.wf-ms { color: #888; font-variant-numeric: tabular-nums; }
`;
