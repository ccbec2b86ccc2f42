import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { conflict, invalidRequest } from '#mds/platform';
import { ACCESS_DEPS, nowIso, userIdFor, type AccessDeps } from '../access.deps';
import { USER_CREATED, USER_CREATED_SCHEMA, userStream, type UserCreated } from '../access.events';
import { hashPassword } from '../credentials/password';
import { base32Decode } from '../credentials/totp';
import { loadUser } from '../access.streams';
import { isRole } from '../roles';
import { checkPassword } from '../user.decider';
import { CreateUserCommand } from './create-user.command';

export interface CreatedUser {
  user_id: string;
  username: string;
  roles: string[];
  totp: boolean;
  position: number;
}

@CommandHandler(CreateUserCommand)
export class CreateUserHandler implements ICommandHandler<CreateUserCommand, CreatedUser> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: CreateUserCommand): Promise<CreatedUser> {
    const username = cmd.username?.trim() ?? '';
    if (!/^[A-Za-z0-9._@+-]{1,150}$/.test(username)) throw invalidRequest('username must be 1-150 letters, digits or . _ @ + -');
    if (username.toLowerCase() === 'access-token') throw invalidRequest('"access-token" is reserved for token authentication');
    checkPassword(cmd.password);
    if (!Array.isArray(cmd.roles) || cmd.roles.length === 0 || !cmd.roles.every(isRole)) throw invalidRequest('roles must be a non-empty list of superuser, admin, staff, auditor');
    if (cmd.totpSecret !== undefined) {
      try {
        if (base32Decode(cmd.totpSecret).length < 10) throw new Error('too short');
      } catch {
        throw invalidRequest('TOTP secret must be base32 with at least 80 bits');
      }
    }
    const userId = userIdFor(username);
    const data: UserCreated = {
      user_id: userId,
      username,
      password_hash_sealed: this.deps.secrets.seal(await hashPassword(cmd.password, this.deps.passwordHashCost)),
      roles: [...new Set(cmd.roles)],
      totp_secret_sealed: cmd.totpSecret ? this.deps.secrets.seal(cmd.totpSecret.replace(/[\s=-]/g, '').toUpperCase()) : null,
      created_at: nowIso(this.deps),
    };
    // A deleted user's username may be taken again: at the end of their stream (a new one: no stream).
    const { state, revision } = await loadUser(this.store, userId);
    if (state.exists) throw conflict(`user "${username}" already exists`);
    try {
      const result = await this.store.append(userStream(userId), [{ type: USER_CREATED, data, metadata: { actor: cmd.actor, schema: USER_CREATED_SCHEMA } }], { expectedRevision: revision });
      return { user_id: userId, username, roles: data.roles, totp: Boolean(data.totp_secret_sealed), position: result.position };
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) throw conflict(`user "${username}" already exists`);
      throw err;
    }
  }
}
