import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { METRICS } from '../platform/tokens';
import type { ServiceMetrics } from './metrics';

@ApiExcludeController()
@Controller()
export class MetricsHttpController {
  constructor(@Inject(METRICS) private readonly metrics: ServiceMetrics) {}

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
