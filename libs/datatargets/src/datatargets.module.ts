import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ChangeDatatargetHandler } from './change-datatarget/change-datatarget.handler';
import { ChangeOutletHandler } from './change-outlet/change-outlet.handler';
import { ControlOutletHandler } from './control-outlet/control-outlet.handler';
import { CreateDatatargetHandler } from './create-datatarget/create-datatarget.handler';
import { CreateOutletHandler } from './create-outlet/create-outlet.handler';
import { DeleteDatatargetHandler } from './delete-datatarget/delete-datatarget.handler';
import { DeleteOutletHandler } from './delete-outlet/delete-outlet.handler';
import { PostMessagesHandler } from './post-messages/post-messages.handler';
import { SendTestHandler } from './send-test/send-test.handler';

/** The datatargets context's command handlers. */
@Module({
  imports: [CqrsModule],
  providers: [CreateDatatargetHandler, ChangeDatatargetHandler, DeleteDatatargetHandler, PostMessagesHandler, CreateOutletHandler, ChangeOutletHandler, DeleteOutletHandler, ControlOutletHandler, SendTestHandler],
})
export class DatatargetsModule {}
