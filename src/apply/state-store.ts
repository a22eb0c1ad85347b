import type { StateBackend } from '../state/backend.js';
import type { State } from '../state/model.js';

/** The state in memory, written through the backend after every change, one write at a time. */
export class StateStore {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly backend: StateBackend,
    public current: State,
  ) {}

  commit(mutate: (state: State) => void): Promise<void> {
    mutate(this.current);
    const snapshot = structuredClone(this.current);
    this.chain = this.chain.then(async () => {
      const written = await this.backend.write(snapshot);
      this.current.serial = written.serial;
      this.current.lineage = written.lineage;
    });
    return this.chain;
  }

  flushed(): Promise<void> {
    return this.chain;
  }
}
