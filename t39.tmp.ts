import { decimalOfNumber, toPlainDecimal, scaledDecimal } from './kernel/src/index.js';
for (const v of [-5, 1e21, 0.1+0.2]) { try { console.log(v, decimalOfNumber(v)); } catch (e) { console.log(v, 'ERR', (e as Error).message); } }
for (const v of ['-5', ' 5 ', '1e3']) { try { console.log(v, toPlainDecimal(v)); } catch (e) { console.log(v, 'ERR', (e as Error).message); } }
try { console.log(scaledDecimal('-5')); } catch (e) { console.log('sd ERR', (e as Error).message); }
