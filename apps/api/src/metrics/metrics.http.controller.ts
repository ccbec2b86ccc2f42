import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../access/permissions';
import { METRICS } from '../platform/tokens';
import type { ServiceMetrics } from './metrics';

@ApiTags('operations')
@Controller()
export class MetricsHttpController {
  constructor(@Inject(METRICS) private readonly metrics: ServiceMetrics) {}

  @Get('metrics')
  @RequirePermission('operations:read')
  @ApiOperation({ summary: 'Prometheus metrics: HTTP requests and latency by route, event log head, projection checkpoints and lag' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4' })
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
