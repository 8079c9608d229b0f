#!/usr/bin/env python3
"""Writes the first sheet of an .xlsx workbook as CSV (`;`, UTF-8, LF), one CSV record per sheet
row element of the sheet, in order (a row element without values becomes an empty record; rows the
sheet does not list at all are not written, which is how the committed snapshot numbers its German
`bnetza:<date>:row<N>` source ids).
Numbers are written as stored (dot decimal); Excel date serials stay numbers.
Standard library only. Used to feed the 2017-2019 Ladesaeulenregister releases (published as
xlsx) to `npm run import -- bnetza` (see snapshots/sources/IMPORT.md).

    python3 snapshots/tools/xlsx-to-csv.py in.xlsx > out.csv
"""
import csv
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {'m': 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'}


def col_index(ref):
    letters = re.match(r'[A-Z]+', ref).group(0)
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - 64)
    return n - 1


def main(path):
    z = zipfile.ZipFile(path)
    shared = []
    if 'xl/sharedStrings.xml' in z.namelist():
        for si in ET.fromstring(z.read('xl/sharedStrings.xml')).findall('m:si', NS):
            shared.append(''.join(t.text or '' for t in si.iter('{%s}t' % NS['m'])))
    wb = ET.fromstring(z.read('xl/workbook.xml'))
    rels = ET.fromstring(z.read('xl/_rels/workbook.xml.rels'))
    first = wb.find('m:sheets/m:sheet', NS)
    rid = first.get('{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id')
    target = next(r.get('Target') for r in rels if r.get('Id') == rid)
    sheet = ET.fromstring(z.read('xl/' + target.lstrip('/').replace('xl/', '')))
    rows = []
    for row in sheet.iter('{%s}row' % NS['m']):
        cells = {}
        for c in row.findall('m:c', NS):
            t = c.get('t')
            v = c.find('m:v', NS)
            if t == 's' and v is not None:
                val = shared[int(v.text)]
            elif t == 'inlineStr':
                val = ''.join(x.text or '' for x in c.iter('{%s}t' % NS['m']))
            else:
                val = v.text if v is not None and v.text is not None else ''
            cells[col_index(c.get('r'))] = val
        rows.append(cells if any(x.strip() for x in cells.values()) else {})
    while rows and not rows[-1]:
        rows.pop()
    width = max((max(c) + 1 for c in rows if c), default=0)
    w = csv.writer(sys.stdout, delimiter=';', lineterminator='\n')
    for cells in rows:
        w.writerow([cells.get(i, '') for i in range(width)] if cells else [])


if __name__ == '__main__':
    main(sys.argv[1])
