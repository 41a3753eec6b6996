import styles from './admin-page.module.css';

/** One figure of the operator pages' rows of figures (a <dl> with styles.figures). */
export function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div className={styles.figure}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
