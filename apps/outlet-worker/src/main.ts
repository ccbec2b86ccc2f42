// Entry of the outlet worker alone: outlets are shared among the workers running, one worker per outlet at a time.
import 'reflect-metadata';
import { runService } from '#mds/runtime';
import { OUTLET_WORKER_PART } from './outlet-worker';

void runService([OUTLET_WORKER_PART]);
