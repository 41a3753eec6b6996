import { formatCount } from '@/lib/format';

/** A profile's figures (own or someone's) as a description list: each a term and its count. */
export function ProfileStats({ className, figures }: { className?: string; figures: [term: string, count: number][] }) {
  return (
    <dl className={className}>
      {figures.map(([term, count]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{formatCount(count)}</dd>
        </div>
      ))}
    </dl>
  );
}
