// Entry of the outlet worker alone (`mds outlet-worker`).
import { serve } from '../../cli/src/serve';

void serve(['outlet-worker']);
