import { createContext, useCallback, useContext, useState } from 'react';
import { getCachedMe, setCachedMe, type Me } from '@/lib/session';

/** The signed-in user as last seen (username, e-mail, picture), kept for this tab's session. */
const MeContext = createContext<Me | null>(null);
/**
 * The one way to change it, in a context of its own that never changes: a screen that only
 * reports what it loaded (the own profile) is not rendered again each time the user's details
 * arrive, as the navigation bar's requests answer after the first paint.
 */
const UpdateMeContext = createContext<(patch: Partial<Me>) => void>(() => {});

export function MeProvider({ children }: { children: React.ReactNode }) {
  const [me, setMe] = useState<Me | null>(() => getCachedMe());
  const updateMe = useCallback((patch: Partial<Me>) => {
    setMe((prev) => {
      const next: Me = { username: null, email: null, profilePictureUrl: null, ...prev, ...patch };
      setCachedMe(next);
      return next;
    });
  }, []);
  return (
    <UpdateMeContext.Provider value={updateMe}>
      <MeContext.Provider value={me}>{children}</MeContext.Provider>
    </UpdateMeContext.Provider>
  );
}

/** The signed-in user and the way to change it; renders again whenever the user's details change. */
export const useMe = () => ({ me: useContext(MeContext), updateMe: useContext(UpdateMeContext) });

/** Only the way to change the signed-in user's details: never renders again because of them. */
export const useUpdateMe = () => useContext(UpdateMeContext);
