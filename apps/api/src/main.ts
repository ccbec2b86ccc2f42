// Entry of the API alone: stateless, run as many as the load needs behind a balancer.
import 'reflect-metadata';
import { runService } from '#mds/runtime';
import { API_PART } from './api.part';

void runService([API_PART]);
