import { defineCrashTest } from '../support/crash-test.ts';

defineCrashTest('sandbox');
