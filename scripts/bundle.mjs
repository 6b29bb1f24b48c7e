// Bundles dist/ (see rolldown.config.mjs) through rolldown's API: its command line lists every
// chunk it writes, on every `npm install` and `npm test`. Warnings still reach stderr.
import { build } from 'rolldown';
import configs from '../rolldown.config.mjs';

for (const config of configs) await build(config);
