import { Module } from '@nestjs/common';
import { CampaignsModule } from '#mds/campaigns';
import { CampaignsHttpController } from './campaigns.http.controller';

@Module({ imports: [CampaignsModule], controllers: [CampaignsHttpController] })
export class CampaignsHttpModule {}
