// Entry of the outlet worker alone (`mds outlet-worker`).
import { serve } from '#mds/cli';

void serve(['outlet-worker']);
