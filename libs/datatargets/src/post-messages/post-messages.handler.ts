import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { appendDecided, EVENT_STORE, type EventStore } from '#mds/event-store';
import { notFound } from '#mds/platform';
import { liveHead, messagesOf, metadataOf, numberMessages } from '../datatarget.decider';
import { DATATARGET_CREATED, datatargetStream, MESSAGES_POSTED, type DatatargetCreated } from '../datatarget.events';
import { PostMessagesCommand } from './post-messages.command';

export interface PostedMessages {
  first_message_number: number;
  messages_count: number;
  position: number;
}

/**
 * Numbers are assigned here, gap-free from 1, by appending at the stream's last revision (another
 * post in between makes the append fail, and the numbers are taken again).
 */
@CommandHandler(PostMessagesCommand)
export class PostMessagesHandler implements ICommandHandler<PostMessagesCommand, PostedMessages> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ datatargetId, body, meta }: PostMessagesCommand): Promise<PostedMessages> {
    const messages = messagesOf(body);
    const [created] = await this.store.readStream(datatargetStream(datatargetId), { limit: 1 });
    if (!created || created.type !== DATATARGET_CREATED) throw notFound(`No datatarget ${datatargetId.slice(0, 64)}`);
    const type = (created.data as DatatargetCreated).datatarget_type;
    let first = 0;
    const { position } = await appendDecided(this.store, datatargetStream(datatargetId), (last) => {
      const posts = numberMessages(type, liveHead(last, datatargetId).lastMessageNumber, messages);
      first = posts[0].first_message_number;
      return posts.map((data) => ({ type: MESSAGES_POSTED, data, metadata: metadataOf(meta) }));
    });
    return { first_message_number: first, messages_count: messages.length, position };
  }
}
