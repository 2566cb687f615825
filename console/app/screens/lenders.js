// The Lenders screen (#/lenders): the organization's lender panel in
// pages, filtered by active or not, with a form that adds a lender or
// changes the one picked for editing.

import { gql } from '../api.js';
import { clearError, formField, h, money, pager, replace, showError } from '../ui.js';
import { words } from '../sections/lending.js';

const PRODUCTS = ['mca', 'term_loan', 'line_of_credit', 'equipment', 'sba', 'invoice_factoring'];
const LENDER_FIELDS = 'id name isActive products minAmount maxAmount minMonthlyRevenue minMonthsInBusiness excludedIndustries commissionRate contactEmail';

// The box's optional amounts and numbers: cleared on edit when emptied.
const CLEARABLE = [
  ['minAmount', 'clearMinAmount'],
  ['maxAmount', 'clearMaxAmount'],
  ['minMonthlyRevenue', 'clearMinMonthlyRevenue'],
  ['minMonthsInBusiness', 'clearMinMonthsInBusiness'],
  ['contactEmail', 'clearContactEmail'],
];

/** Fills main with the lender list and the lender form. */
export async function render(main, ctx) {
  const filter = h('select', { name: 'active' },
    h('option', { value: 'true' }, 'Active'),
    h('option', { value: 'false' }, 'Inactive'),
    h('option', { value: '' }, 'All'));
  // The filter lives in the address (#/lenders?active=false, active=all).
  filter.value = { false: 'false', all: '' }[ctx.query.get('active')] ?? 'true';
  const list = pager({
    caption: 'Lenders',
    empty: 'No lender here yet.',
    load: ({ page, limit }) => gql(`query($active: Boolean, $page: Int, $limit: Int) {
      lendersPage(isActive: $active, page: $page, limit: $limit) { nodes { ${LENDER_FIELDS} } total page limit hasMore } }`,
    { active: filter.value === '' ? null : filter.value === 'true', page, limit }).then((d) => d.lendersPage),
    columns: [
      { label: 'Name', render: (l) => h('strong', {}, l.name) },
      { label: 'Active', render: (l) => (l.isActive ? 'Yes' : 'No') },
      { label: 'Products', render: (l) => l.products.map(words).join(', ') || 'Any' },
      { label: 'Amounts', render: (l) => (l.minAmount || l.maxAmount ? `${money(l.minAmount)} to ${money(l.maxAmount)}` : 'Any') },
      { label: 'Min. revenue', render: (l) => money(l.minMonthlyRevenue) },
      { label: 'Commission rate', render: (l) => l.commissionRate },
      { label: 'Contact', render: (l) => l.contactEmail || '—' },
      { label: 'Edit', render: (l) => h('button', { type: 'button', 'aria-label': `Edit ${l.name}`, onclick: () => edit(l) }, 'Edit') },
    ],
  });
  filter.addEventListener('change', () => {
    ctx.setQuery({ active: filter.value === 'true' ? '' : filter.value || 'all' });
    list.reload();
  });

  const formHolder = h('div', { class: 'lender-form-holder' });
  function edit(lender) {
    replace(formHolder, lenderForm(lender, (saved) => {
      list.refresh();
      edit(null);
      announce.textContent = `${saved.name} ${lender ? 'saved' : 'added'}.`;
    }, () => edit(null)));
    if (lender) formHolder.querySelector('input[name="name"]').focus();
  }
  const announce = h('p', { class: 'muted', role: 'status' });
  edit(null);

  main.append(
    h('h1', {}, ctx.title),
    h('div', { class: 'toolbar' }, formField('Show', filter)),
    list.element,
    announce,
    formHolder);
}

/** The form adding a lender (lender null) or changing lender. */
function lenderForm(lender, saved, cancel) {
  const l = lender || {};
  const input = (name, attrs = {}) => h('input', { type: 'text', name, autocomplete: 'off', value: l[name] ?? '', ...attrs });
  const products = h('fieldset', { class: 'checks' }, h('legend', {}, 'Products'),
    PRODUCTS.map((p) => h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: 'products', value: p, checked: (l.products || []).includes(p) }), ` ${words(p)}`)));
  const button = h('button', { type: 'submit', class: 'primary' }, lender ? 'Save lender' : 'Add lender');
  const form = h('form', { class: 'lender-form', novalidate: true, 'aria-labelledby': 'lender-form-title' },
    h('h2', { id: 'lender-form-title' }, lender ? `Edit ${lender.name}` : 'Add a lender'),
    formField('Name', input('name', { required: true, maxlength: '200' })),
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'isActive', checked: lender ? l.isActive : true }), ' Active: takes new applications'),
    products,
    formField('Minimum amount', input('minAmount', { inputmode: 'decimal' })),
    formField('Maximum amount', input('maxAmount', { inputmode: 'decimal' })),
    formField('Minimum monthly revenue', input('minMonthlyRevenue', { inputmode: 'decimal' })),
    formField('Minimum months in business', input('minMonthsInBusiness', { type: 'number', min: '0', max: '1200' })),
    formField('Excluded industries', input('excludedIndustries', { value: (l.excludedIndustries || []).join(', ') }), { hint: 'Separated by commas.' }),
    formField('Commission rate', input('commissionRate', { inputmode: 'decimal' }), { hint: 'A fraction of the funded amount: 0.05 is 5 %.' }),
    formField('Contact email', input('contactEmail', { type: 'email' })),
    h('div', { class: 'actions' }, button, lender ? h('button', { type: 'button', onclick: cancel }, 'Cancel') : null));

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = form.elements;
    const v = (name) => f[name].value.trim();
    const data = {
      name: v('name'),
      isActive: f.isActive.checked,
      products: [...form.querySelectorAll('input[name="products"]:checked')].map((b) => b.value),
      excludedIndustries: v('excludedIndustries').split(',').map((s) => s.trim()).filter(Boolean),
    };
    if (v('commissionRate')) data.commissionRate = v('commissionRate');
    for (const [name, clear] of CLEARABLE) {
      const value = v(name);
      if (value) data[name] = name === 'minMonthsInBusiness' ? Number(value) : value;
      else if (lender && l[name] !== null && l[name] !== undefined) data[clear] = true;
    }
    button.disabled = true;
    try {
      const result = lender
        ? (await gql(`mutation($id: ID!, $input: UpdateLenderInput!) { updateLender(id: $id, input: $input) { ${LENDER_FIELDS} } }`,
          { id: lender.id, input: data })).updateLender
        : (await gql(`mutation($input: CreateLenderInput!) { createLender(input: $input) { ${LENDER_FIELDS} } }`,
          { input: data })).createLender;
      clearError();
      saved(result);
    } catch (err) {
      showError(err, lender ? `Saving ${lender.name} failed.` : 'Adding the lender failed.');
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
