import type { Locator, Page } from '@playwright/test';

/** The navigation bar shown on every app screen. */
export class NavBar {
  readonly nav: Locator;
  readonly home: Locator;
  readonly discover: Locator;
  readonly create: Locator;
  readonly search: Locator;
  readonly profile: Locator;
  /** The bell: its name says how many are unread ("Notifications, 2 unread"). */
  readonly notifications: Locator;
  /** Shown to operators only. */
  readonly admin: Locator;

  constructor(page: Page) {
    this.nav = page.getByRole('navigation', { name: 'Main' });
    this.home = this.nav.getByRole('link', { name: 'Home' });
    this.discover = this.nav.getByRole('link', { name: 'Discover' });
    this.create = this.nav.getByRole('link', { name: 'Create' });
    this.search = this.nav.getByRole('link', { name: 'Search' });
    this.profile = this.nav.getByRole('link', { name: 'Profile' });
    this.admin = this.nav.getByRole('link', { name: 'Admin' });
    this.notifications = this.nav.getByRole('link', { name: /^Notifications/ });
  }
}
