import { parse, parseFragment, serializeOuter } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';

type P5Node = DefaultTreeAdapterMap['node'];
type P5Element = DefaultTreeAdapterMap['element'];

/**
 * The minimal DOM the `xpath` package walks (nodeType, nodeName, parent/child/sibling links, attributes), built
 * from a parse5 tree: parse5 is the HTML parser a browser's would match, and its own tree is not DOM-shaped.
 * `<template>` content is left out, as a browser leaves it inert until a script renders it.
 */
export interface XNode {
  nodeType: number;
  nodeName: string;
  localName: string | null;
  namespaceURI: string | null;
  prefix: null;
  nodeValue: string | null;
  parentNode: XNode | null;
  ownerDocument: XNode | null;
  ownerElement?: XNode;
  firstChild: XNode | null;
  lastChild: XNode | null;
  nextSibling: XNode | null;
  previousSibling: XNode | null;
  childNodes: XNode[];
  attributes?: XAttributes;
  documentElement?: XNode | null;
  name?: string;
  value?: string;
  /** The parse5 node, to serialise a match back to HTML. */
  source?: P5Node;
}

/** A NamedNodeMap-like list: indexable, with length and item(). */
export type XAttributes = XNode[] & { item(index: number): XNode | null };

const ELEMENT = 1;
const ATTRIBUTE = 2;
const TEXT = 3;
const COMMENT = 8;
const DOCUMENT = 9;

export function buildXDocument(html: string, fragment = false): XNode {
  const root = fragment ? parseFragment(html) : parse(html);
  const doc = blank(DOCUMENT, '#document', null);
  doc.ownerDocument = null;
  appendChildren(doc, (root as { childNodes: P5Node[] }).childNodes, doc);
  doc.documentElement = doc.childNodes.find((n) => n.nodeType === ELEMENT) ?? null;
  return doc;
}

function blank(nodeType: number, nodeName: string, owner: XNode | null): XNode {
  return {
    nodeType,
    nodeName,
    localName: null,
    namespaceURI: null,
    prefix: null,
    nodeValue: null,
    parentNode: null,
    ownerDocument: owner,
    firstChild: null,
    lastChild: null,
    nextSibling: null,
    previousSibling: null,
    childNodes: [],
  };
}

function appendChildren(parent: XNode, children: readonly P5Node[], doc: XNode): void {
  let previous: XNode | null = null;
  for (const child of children) {
    const node = convert(child, doc);
    if (node === undefined) continue;
    node.parentNode = parent;
    node.previousSibling = previous;
    if (previous !== null) previous.nextSibling = node;
    else parent.firstChild = node;
    parent.childNodes.push(node);
    previous = node;
  }
  parent.lastChild = previous;
}

function convert(node: P5Node, doc: XNode): XNode | undefined {
  if (node.nodeName === '#text') {
    const text = blank(TEXT, '#text', doc);
    text.nodeValue = (node as DefaultTreeAdapterMap['textNode']).value;
    return text;
  }
  if (node.nodeName === '#comment') {
    const comment = blank(COMMENT, '#comment', doc);
    comment.nodeValue = (node as DefaultTreeAdapterMap['commentNode']).data;
    return comment;
  }
  if (!('tagName' in node)) return undefined;
  const element = node as P5Element;
  const x = blank(ELEMENT, element.tagName, doc);
  x.localName = element.tagName;
  x.namespaceURI = element.namespaceURI;
  x.source = element;
  const attributes = element.attrs.map((attr) => {
    const a = blank(ATTRIBUTE, attr.name, doc);
    a.localName = attr.name;
    a.name = attr.name;
    a.value = attr.value;
    a.nodeValue = attr.value;
    a.ownerElement = x;
    return a;
  }) as XAttributes;
  attributes.item = (index) => attributes[index] ?? null;
  x.attributes = attributes;
  appendChildren(x, element.childNodes, doc);
  return x;
}

/** The text of a node as XPath's string() would give it. */
export function xTextContent(node: XNode): string {
  if (node.nodeType === ATTRIBUTE || node.nodeType === TEXT || node.nodeType === COMMENT)
    return node.nodeValue ?? '';
  let out = '';
  for (const child of node.childNodes) {
    if (child.nodeType === TEXT) out += child.nodeValue ?? '';
    else if (child.nodeType === ELEMENT) out += xTextContent(child);
  }
  return out;
}

export function isAttributeNode(node: XNode): boolean {
  return node.nodeType === ATTRIBUTE;
}

/** The HTML of an element match, to search inside it with CSS. */
export function xOuterHtml(node: XNode): string | undefined {
  return node.source !== undefined ? serializeOuter(node.source) : undefined;
}
