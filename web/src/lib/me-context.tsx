import { createContext, useCallback, useContext, useMemo, useState } from 'react';
import { getCachedMe, setCachedMe, type Me } from '@/lib/session';

interface MeContextValue {
  /** The signed-in user as last seen (username, e-mail, picture), kept for this tab's session. */
  me: Me | null;
  updateMe: (patch: Partial<Me>) => void;
}

const MeContext = createContext<MeContextValue>({ me: null, updateMe: () => {} });

export function MeProvider({ children }: { children: React.ReactNode }) {
  const [me, setMe] = useState<Me | null>(() => getCachedMe());
  const updateMe = useCallback((patch: Partial<Me>) => {
    setMe((prev) => {
      const next: Me = { username: null, email: null, profilePictureUrl: null, ...prev, ...patch };
      setCachedMe(next);
      return next;
    });
  }, []);
  const value = useMemo(() => ({ me, updateMe }), [me, updateMe]);
  return <MeContext.Provider value={value}>{children}</MeContext.Provider>;
}

export const useMe = () => useContext(MeContext);
