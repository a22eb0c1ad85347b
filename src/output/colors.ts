import pc from 'picocolors';

/** The colour functions renderers use; plain when colour is off (pipes, CI, NO_COLOR, --no-color). */
export type Colors = Pick<
  ReturnType<typeof pc.createColors>,
  'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'magenta'
>;

export function createColors(enabled: boolean): Colors {
  return pc.createColors(enabled);
}
