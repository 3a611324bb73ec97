/** A minimal XML reader for SVG tests (Node has no DOMParser): well-formedness, the element tree, numbers drawn. */
export interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  text: string;
}

/**
 * A minimal XML well-formedness check (Node has no DOMParser): one root element; tags nest and close by name;
 * attributes are name="value" or name='value', unique, separated by white space, with no '<' in values; every '&'
 * starts one of the five predefined entities or a character reference; comments and a leading declaration allowed.
 * Throws with the offset on the first violation; returns the element tree.
 */
export function parseXml(src: string): Element {
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`not well-formed at ${i}: ${why} near '${src.slice(Math.max(0, i - 20), i + 20)}'`);
  };
  const isSpace = (c: string): boolean => c === ' ' || c === '\n' || c === '\t' || c === '\r';
  const isNameStart = (c: string): boolean =>
    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === ':';
  const isNameChar = (c: string): boolean => isNameStart(c) || (c >= '0' && c <= '9') || c === '-' || c === '.';
  const readName = (): string => {
    const start = i;
    if (!isNameStart(src[i] ?? '')) fail('expected a name');
    while (i < src.length && isNameChar(src[i])) i++;
    return src.slice(start, i);
  };
  const checkEntities = (text: string): void => {
    for (let k = text.indexOf('&'); k >= 0; k = text.indexOf('&', k + 1)) {
      const end = text.indexOf(';', k);
      const ref = end < 0 ? '' : text.slice(k + 1, end);
      const ok =
        ['amp', 'lt', 'gt', 'quot', 'apos'].includes(ref) ||
        (ref.startsWith('#x') &&
          ref.length > 2 &&
          [...ref.slice(2)].every((c) => '0123456789abcdefABCDEF'.includes(c))) ||
        (ref.startsWith('#') && ref.length > 1 && [...ref.slice(1)].every((c) => c >= '0' && c <= '9'));
      if (!ok) fail(`bad entity '&${ref}'`);
    }
  };
  if (src.startsWith('<?xml')) {
    i = src.indexOf('?>');
    if (i < 0) fail('unterminated declaration');
    i += 2;
  }
  const stack: Element[] = [];
  let root: Element | null = null;
  while (i < src.length) {
    const lt = src.indexOf('<', i);
    const text = src.slice(i, lt < 0 ? src.length : lt);
    checkEntities(text);
    if (stack.length === 0 && text.trim() !== '') fail('text outside the root element');
    if (stack.length > 0) stack[stack.length - 1].text += text;
    if (lt < 0) break;
    i = lt;
    if (src.startsWith('<!--', i)) {
      const end = src.indexOf('-->', i + 4);
      if (end < 0) fail('unterminated comment');
      i = end + 3;
    } else if (src.startsWith('</', i)) {
      i += 2;
      const name = readName();
      while (isSpace(src[i] ?? '')) i++;
      if (src[i] !== '>') fail(`expected '>' closing </${name}`);
      i++;
      const open = stack.pop();
      if (!open) fail(`</${name}> closes nothing`);
      if (open!.name !== name) fail(`</${name}> closes <${open!.name}>`);
    } else {
      i++;
      const el: Element = { name: readName(), attrs: {}, children: [], text: '' };
      if (stack.length > 0) stack[stack.length - 1].children.push(el);
      else if (root) fail('a second root element');
      else root = el;
      for (;;) {
        const spaced = isSpace(src[i] ?? '');
        while (isSpace(src[i] ?? '')) i++;
        if (src.startsWith('/>', i)) {
          i += 2;
          break;
        }
        if (src[i] === '>') {
          i++;
          stack.push(el);
          break;
        }
        if (!spaced) fail('attributes must be separated by white space');
        const name = readName();
        if (name in el.attrs) fail(`duplicate attribute ${name}`);
        if (src[i++] !== '=') fail(`expected '=' after ${name}`);
        const quote = src[i++];
        if (quote !== '"' && quote !== "'") fail(`attribute ${name} is not quoted`);
        const end = src.indexOf(quote, i);
        if (end < 0) fail(`unterminated attribute ${name}`);
        const value = src.slice(i, end);
        if (value.includes('<')) fail(`'<' in attribute ${name}`);
        checkEntities(value);
        el.attrs[name] = value;
        i = end + 1;
      }
    }
  }
  if (stack.length > 0) fail(`<${stack[stack.length - 1].name}> is never closed`);
  if (!root) fail('no root element');
  return root!;
}

export function all(el: Element, out: Element[] = []): Element[] {
  out.push(el);
  for (const c of el.children) all(c, out);
  return out;
}

/** Every number written in path data and in coordinate attributes. */
export function numbersIn(el: Element): number[] {
  const nums: number[] = [];
  for (const e of all(el)) {
    for (const [k, v] of Object.entries(e.attrs)) {
      if (k === 'd') {
        for (const part of v.split(/[MLHVZmlhvz]/))
          for (const t of part.trim().split(/[\s,]+/)) if (t !== '') nums.push(Number(t));
      } else if (['x', 'y', 'x1', 'x2', 'y1', 'y2', 'cx', 'cy', 'r', 'width', 'height'].includes(k)) {
        nums.push(Number(v));
      }
    }
  }
  return nums;
}
