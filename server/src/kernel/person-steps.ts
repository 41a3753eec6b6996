/**
 * What one capability does to its own rows when a person leaves or is suspended. Removing an
 * account (people/account-removal-repository.ts) and suspending one (people/suspension.ts) run
 * every capability's steps inside their one transaction, so each folder writes only its own
 * tables. The list is put together once, in server/src/person-steps.ts.
 */
export interface PersonSteps {
  /**
   * Deletes the person's rows, once the counters have taken them out (kernel/counters.ts,
   * accountRemoving). Returns the stored files those rows pointed at, deleted after the commit,
   * and how many posts went.
   */
  remove?(person: { id: number; sub: string }): { files?: string[]; posts?: number } | void;
  /** Hides what the person wrote (true, a suspension) or shows it again (false, its lift). */
  hide?(userId: number, hidden: boolean): void;
}
