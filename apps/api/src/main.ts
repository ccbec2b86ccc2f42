// Entry of the API alone (`mds api`): stateless, run as many as the load needs behind a balancer.
import { serve } from '#mds/cli';

void serve(['api']);
